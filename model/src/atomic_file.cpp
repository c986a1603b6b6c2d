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

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string pattern = path + ".tmp.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) throw RuntimeFailure("cannot create a temporary file next to " + path + ": " + std::strerror(errno));
  const std::string temporary(name.data());
  auto fail = [&](const char* step) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    std::remove(temporary.c_str());
    return RuntimeFailure(std::string("cannot write ") + path + " (" + step + "): " + why);
  };
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) throw fail("chmod");
  if (::fsync(fd) != 0) throw fail("fsync");
  if (::close(fd) != 0) {
    std::remove(temporary.c_str());
    throw RuntimeFailure("cannot write " + path + " (close): " + std::strerror(errno));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw RuntimeFailure("cannot write " + path + " (rename): " + why);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return content.str();
}

}  // namespace perfmodel
