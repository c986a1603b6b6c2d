#pragma once
// Reading and writing calibration profiles (YAML, schema version kProfileSchemaVersion).
//
// Reading validates everything and throws InputError "file:line:col: key.path: problem" for:
// malformed YAML, a schema version other than this build's, a missing key, an unknown key,
// a value of the wrong type, a negative or non-finite constant, a value outside limits.hpp,
// segments that are not contiguous, ascending and covering [0, +inf), a duplicate key, a second
// YAML document, anchors or aliases, and a file that starts as perfmodel writes profiles
// ("# perfmodel calibration profile") but does not end with the document end marker "..." that
// every profile_to_yaml output ends with (a copy cut short). docs/input-limits.md has the list.
#include <string>

#include "perfmodel/model/profile.hpp"

namespace perfmodel {

std::string profile_to_yaml(const Profile& profile);
Profile parse_profile(const std::string& yaml_text, const std::string& file_name);
Profile load_profile(const std::string& path);
// Atomic: the file appears whole or not at all. What is written is first read back with
// parse_profile: a profile its reader refuses throws RuntimeFailure and nothing is written.
void save_profile(const Profile& profile, const std::string& path);

}  // namespace perfmodel
