#pragma once
// Reading and writing calibration profiles (YAML, schema version kProfileSchemaVersion).
//
// Reading validates everything and throws InputError "file:line:col: key.path: problem" for:
// malformed YAML, a schema version other than this build's, a missing key, an unknown key,
// a value of the wrong type, a negative or non-finite constant, and segments that are not
// contiguous, ascending and covering [0, +inf).
#include <string>

#include "perfmodel/model/profile.hpp"

namespace perfmodel {

std::string profile_to_yaml(const Profile& profile);
Profile parse_profile(const std::string& yaml_text, const std::string& file_name);
Profile load_profile(const std::string& path);
// Atomic: the file appears whole or not at all.
void save_profile(const Profile& profile, const std::string& path);

}  // namespace perfmodel
