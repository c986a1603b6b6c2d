// Atomic writes, staged output folders and the list of live temporaries that a signal removes
// (the contract is in atomic_file.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"

namespace perfmodel {
namespace {

namespace fs = std::filesystem;

// ---- The list of live temporaries, read by the signal handler ----------------------------------
// Fixed slots of fixed size: the handler may only read memory and make system calls
// (async-signal-safe), so nothing here is allocated or freed while a signal can look.
constexpr int kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
enum SlotState : int { kFree = 0, kFilling = 1, kFile = 2, kFolder = 3 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes];
};
Slot g_slots[kSlots];
std::atomic<int> g_child{0};
struct sigaction g_previous[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

// Removes a folder and everything under it with system calls only (no allocation), for the
// signal handler. Entries removed while a folder is read may hide others, so a folder is read
// again from its start until nothing is left to remove.
void remove_tree_in_handler(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0) return;
  if (depth > 16) return;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[4096];
  for (int pass = 0; pass < 1000; ++pass) {
    ::lseek(fd, 0, SEEK_SET);
    bool removed_any = false;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
        unsigned short reclen;
        std::memcpy(&reclen, buffer + at + 16, sizeof reclen);
        const char* entry = buffer + at + 19;
        if (!(entry[0] == '.' && (entry[1] == '\0' || (entry[1] == '.' && entry[2] == '\0')))) {
          remove_tree_in_handler(fd, entry, depth + 1);
          removed_any = true;
        }
        at += reclen;
      }
    }
    if (!removed_any) break;
  }
  ::close(fd);
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

void on_signal(int signal) {
  const int child = g_child.load();
  if (child > 0) ::kill(child, SIGTERM);
  for (Slot& s : g_slots) {
    const int state = s.state.load();
    if (state == kFile) ::unlink(s.path);
    if (state == kFolder) remove_tree_in_handler(AT_FDCWD, s.path, 0);
  }
  // SA_RESETHAND restored the previous disposition; the signal, blocked while this handler
  // runs, is delivered again when it returns and ends the process as it would have.
  ::raise(signal);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int i = 0; i < 3; ++i) {
      struct sigaction current {};
      if (::sigaction(kSignals[i], nullptr, &current) != 0) continue;
      // A signal ignored (nohup) or handled by someone else is left as it is.
      if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
      struct sigaction mine {};
      mine.sa_handler = on_signal;
      sigemptyset(&mine.sa_mask);
      for (int s : kSignals) sigaddset(&mine.sa_mask, s);
      mine.sa_flags = SA_RESETHAND;
      ::sigaction(kSignals[i], &mine, &g_previous[i]);
    }
  });
}

// Lists `path` (a file or a folder) for the handler. -1 when every slot is taken or the path is
// too long: the temporary is then still removed by its owner, just not by a signal.
int list_temporary(const std::string& path, SlotState kind) {
  install_handlers();
  std::string absolute = path;
  if (!path.empty() && path[0] != '/') {
    std::error_code ec;
    absolute = fs::absolute(path, ec).string();
    if (ec) return -1;
  }
  if (absolute.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[i].path, absolute.c_str(), absolute.size() + 1);
      g_slots[i].state.store(kind);
      return i;
    }
  }
  return -1;
}

void unlist_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree);
}

// ---- Modes and links ---------------------------------------------------------------------------

mode_t process_umask() {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

// The mode a file written at `target` gets: the existing file's, else 0666 less the umask.
mode_t mode_for(const std::string& target) {
  struct stat info {};
  if (::stat(target.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return info.st_mode & 07777;
  return 0666 & ~process_umask();
}

std::string link_target(const std::string& path) {
  std::error_code ec;
  const fs::path to = fs::read_symlink(path, ec);
  return ec ? std::string("?") : to.string();
}

// InputError where `path` is a symbolic link or a folder (neither is replaced by a file).
void refuse_link_or_folder(const std::string& path, const std::string& what) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  const std::string prefix = what.empty() ? path : what + " '" + path + "'";
  if (S_ISLNK(info.st_mode))
    throw InputError(prefix + ": is a symbolic link (to " + link_target(path) +
                     "); perfmodel does not replace links: give the file it points to, or remove the link");
  if (S_ISDIR(info.st_mode)) throw InputError(prefix + ": is a folder, not a file");
}

std::string why() { return std::strerror(errno); }

std::string parent_of(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? std::string(".") : p.string();
}

// Renames a file written under a staging folder over `target`, giving it the target's mode.
void move_into_place(const std::string& from, const std::string& target) {
  if (::chmod(from.c_str(), mode_for(target)) != 0) throw RuntimeFailure("cannot write " + target + " (chmod): " + why());
  if (std::rename(from.c_str(), target.c_str()) != 0) throw RuntimeFailure("cannot write " + target + " (rename): " + why());
}

}  // namespace

void set_child_process_for_signals(int pid) { g_child.store(pid); }

// ---- TemporaryFile -----------------------------------------------------------------------------

TemporaryFile::TemporaryFile(const std::string& target) : target_(target) {
  refuse_link_or_folder(target, "");
  std::string pattern = target + ".tmp.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw RuntimeFailure("cannot create a temporary file next to " + target + ": " + why());
  ::close(fd);
  path_ = name.data();
  slot_ = list_temporary(path_, kFile);
}

TemporaryFile::~TemporaryFile() {
  if (!committed_) ::unlink(path_.c_str());
  unlist_temporary(slot_);
}

void TemporaryFile::commit() {
  refuse_link_or_folder(target_, "");  // it may have appeared since
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw RuntimeFailure("cannot write " + target_ + " (open): " + why());
  const bool ok = ::fchmod(fd, mode_for(target_)) == 0 && ::fsync(fd) == 0;
  const std::string reason = ok ? std::string() : why();
  ::close(fd);
  if (!ok) throw RuntimeFailure("cannot write " + target_ + ": " + reason);
  if (std::rename(path_.c_str(), target_.c_str()) != 0) throw RuntimeFailure("cannot write " + target_ + " (rename): " + why());
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  refuse_link_or_folder(path, "");
  std::string pattern = path + ".tmp.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw RuntimeFailure("cannot create a temporary file next to " + path + ": " + why());
  const std::string temporary(name.data());
  const int slot = list_temporary(temporary, kFile);
  auto fail = [&](const char* step) {
    const std::string reason = why();
    ::close(fd);
    ::unlink(temporary.c_str());
    unlist_temporary(slot);
    return RuntimeFailure(std::string("cannot write ") + path + " (" + step + "): " + reason);
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
  if (::fchmod(fd, mode_for(path)) != 0) throw fail("chmod");
  if (::fsync(fd) != 0) throw fail("fsync");
  if (::close(fd) != 0) {
    const std::string reason = why();
    ::unlink(temporary.c_str());
    unlist_temporary(slot);
    throw RuntimeFailure("cannot write " + path + " (close): " + reason);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = why();
    ::unlink(temporary.c_str());
    unlist_temporary(slot);
    throw RuntimeFailure("cannot write " + path + " (rename): " + reason);
  }
  unlist_temporary(slot);
}

// ---- StagedDirectory ---------------------------------------------------------------------------

StagedDirectory::StagedDirectory(const std::string& target, const std::string& what) : target_(target), what_(what) {
  check_output_directory(target, what);
  std::string base;
  std::error_code ec;
  if (fs::is_directory(target, ec)) {  // staged inside: the same file system, whatever the parent allows
    in_target_ = true;
    base = target + "/.perfmodel.tmp.XXXXXX";
  } else {
    std::string trimmed = target;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    const std::string parent = parent_of(trimmed);
    fs::create_directories(parent, ec);
    if (!fs::is_directory(parent)) throw RuntimeFailure("cannot create folder " + parent + (ec ? ": " + ec.message() : std::string()));
    base = parent + "/." + fs::path(trimmed).filename().string() + ".tmp.XXXXXX";
    target_ = trimmed;
  }
  std::vector<char> name(base.begin(), base.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data())) throw RuntimeFailure("cannot create a staging folder for " + target + ": " + why());
  path_ = name.data();
  // mkdtemp makes 0700; the published folder gets what a new folder gets under the umask.
  ::chmod(path_.c_str(), 0777 & ~process_umask());
  slot_ = list_temporary(path_, kFolder);
}

StagedDirectory::~StagedDirectory() {
  if (!published_) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  unlist_temporary(slot_);
}

void StagedDirectory::publish() {
  if (!in_target_) {
    if (std::rename(path_.c_str(), target_.c_str()) == 0) {
      published_ = true;
      return;
    }
    std::error_code ec;
    if (!fs::is_directory(target_, ec)) throw RuntimeFailure("cannot write " + target_ + " (rename): " + why());
    // Made by someone else meanwhile: merged into it below.
  }
  // Every file to move, checked before any is moved: a link or a folder where a file goes, or a
  // file where a folder goes, stops the whole publication with the target untouched.
  std::vector<std::pair<std::string, std::string>> files;  // (staged, target)
  std::vector<std::string> folders;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string relative = fs::relative(it->path(), path_).string();
    const std::string destination = target_ + "/" + relative;
    struct stat info {};
    const bool exists = ::lstat(destination.c_str(), &info) == 0;
    if (it->is_directory()) {
      if (exists && !S_ISDIR(info.st_mode))
        throw InputError(what_ + " " + target_ + ": " + destination + " exists and is not a folder");
      folders.push_back(destination);
    } else {
      refuse_link_or_folder(destination, what_);
      files.push_back({it->path().string(), destination});
    }
  }
  if (ec) throw RuntimeFailure("cannot read the staging folder " + path_ + ": " + ec.message());
  std::stable_partition(files.begin(), files.end(), [&](const auto& f) { return fs::path(f.first).parent_path() != fs::path(path_); });
  for (const std::string& f : folders) {
    fs::create_directory(f, ec);
    if (!fs::is_directory(f)) throw RuntimeFailure("cannot create folder " + f + (ec ? ": " + ec.message() : std::string()));
  }
  for (const auto& [from, to] : files) move_into_place(from, to);
  fs::remove_all(path_, ec);
  published_ = true;
}

// ---- Checks before long work -------------------------------------------------------------------

void check_output_file(const std::string& path, const std::string& what) {
  const std::string prefix = what + " '" + path + "'";
  if (path.empty()) throw InputError(what + ": an empty path names no file");
  if (path.back() == '/') throw InputError(prefix + ": names a folder; give a file name");
  refuse_link_or_folder(path, what);
  const std::string folder = parent_of(path);
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw InputError(prefix + ": the folder " + folder + " does not exist");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) throw InputError(prefix + ": the folder " + folder + " is not writable");
}

void check_output_directory(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + ": an empty path names no folder");
  const std::string prefix = what + " '" + path + "'";
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) throw InputError(prefix + ": exists and is not a folder");
    if (::access(path.c_str(), W_OK | X_OK) != 0) throw InputError(prefix + ": the folder is not writable");
    return;
  }
  // The nearest existing ancestor is where the folders will be made.
  fs::path p = fs::path(path);
  while (!p.empty() && p.has_relative_path() && ::stat(p.c_str(), &info) != 0) p = p.parent_path();
  const std::string ancestor = p.empty() ? std::string(".") : p.string();
  if (::stat(ancestor.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw InputError(prefix + ": " + ancestor + " is not a folder");
  if (::access(ancestor.c_str(), W_OK | X_OK) != 0) throw InputError(prefix + ": the folder " + ancestor + " is not writable");
}

}  // namespace perfmodel
