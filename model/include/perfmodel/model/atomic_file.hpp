#pragma once
// Files perfmodel writes appear whole or not at all: content goes to a temporary file in the
// same directory (a unique name, TARGET.tmp.XXXXXX, so concurrent writers never share one), is
// flushed to disk, and is renamed over the target.
//
// Every temporary file or folder is listed while it exists, and SIGINT, SIGTERM and SIGHUP remove
// the listed ones before the process ends with that signal (a child process the renderer started
// is ended too). SIGKILL cannot be caught: a killed process leaves its TARGET.tmp.XXXXXX behind.
//
// The written file's permissions: an existing target's mode is kept; a new file gets 0666 less
// the process's umask. A symbolic link at the target is never replaced: the write is refused
// (InputError naming the link and where it points), so that a link is not silently turned into
// a file; write to the link's target by its own name instead.
#include <string>

namespace perfmodel {

// Throws RuntimeFailure naming the path if any step fails (the target is then untouched and no
// temporary is left), InputError for a symbolic link or a directory at the target.
void write_file_atomically(const std::string& path, const std::string& content);

// A temporary file beside `target`, created empty by the constructor for another writer (a child
// process) to fill. Removed by the destructor unless commit() renamed it over the target; removed
// by SIGINT/SIGTERM/SIGHUP too.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }
  const std::string& target() const { return target_; }
  // Sets the mode (see above), flushes the file to disk and renames it over the target.
  void commit();

 private:
  std::string target_, path_;
  int slot_ = -1;
  bool committed_ = false;
};

// A folder of outputs built completely before anyone sees it. Files are written under path();
// publish() then puts them in place: a target that did not exist appears in one rename; into an
// existing target folder each file is renamed (subfolders first, the top level's files last),
// replacing files of the same name and leaving the folder's other files alone. Without publish()
// (an error, a signal) the staging folder is removed and the target is as it was.
class StagedDirectory {
 public:
  // `what` names the target in messages ("--out"). InputError where the target exists and is
  // not a folder, RuntimeFailure where the staging folder cannot be made.
  StagedDirectory(const std::string& target, const std::string& what);
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;
  const std::string& path() const { return path_; }
  const std::string& target() const { return target_; }
  void publish();

 private:
  std::string target_, what_, path_;
  int slot_ = -1;
  bool in_target_ = false, published_ = false;
};

// Checks made before long work, so that it does not end in an error. `what` names the flag.
// An output file: not empty, not ending in '/', not a folder or a symbolic link, its folder
// existing and writable. InputError otherwise.
void check_output_file(const std::string& path, const std::string& what);
// An output folder: not empty; a folder if it exists (a link to a folder is fine: files go into
// it), else its nearest existing parent a writable folder. InputError otherwise.
void check_output_directory(const std::string& path, const std::string& what);

// The child process that SIGINT/SIGTERM/SIGHUP end with this one (0: none). For the renderer.
void set_child_process_for_signals(int pid);

// Reads a whole file; throws InputError naming the path if it cannot be read.
std::string read_file(const std::string& path);

}  // namespace perfmodel
