#pragma once
// The toolkit's own identity, recorded in every profile and report it writes.
namespace perfmodel {
const char* toolkit_version();  // project(VERSION) of CMakeLists.txt
const char* toolkit_commit();   // git commit the binary was built from ("-dirty" if modified), or "unknown"
}  // namespace perfmodel
