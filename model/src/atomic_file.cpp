#include "perfmodel/model/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {

// write_file_atomically and the staged folders: output_files.cpp.

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return content.str();
}

}  // namespace perfmodel
