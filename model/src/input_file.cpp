#include "perfmodel/model/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Closes the descriptor on every way out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, std::uint64_t max_bytes) {
  if (path.empty()) throw InputError("an empty file name");
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw InputError(path + ": cannot read: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputError(path + ": is a directory, not a file");
  const bool regular = S_ISREG(info.st_mode);
  if (regular && static_cast<std::uint64_t>(info.st_size) > max_bytes)
    throw InputError(path + ": is " + std::to_string(info.st_size) + " bytes, more than the " + mib(max_bytes) +
                     " perfmodel reads from an input file (limits.hpp)");
  std::string content;
  if (regular) content.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes)
      throw InputError(path + ": " + (regular ? "grew" : "is not a regular file and gives") + " more than the " +
                       mib(max_bytes) + " perfmodel reads from an input file (limits.hpp)");
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

}  // namespace perfmodel
