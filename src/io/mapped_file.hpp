// A regular file mapped read-only into memory: what the loaders read a model of any size through. Its pages are
// the page cache's, so bytes nobody touches cost no memory, and a weight read from it is read where it lies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace condlint::io {

class MappedFile {
 public:
  // Opens `path` without waiting (a FIFO, a device or a socket is refused, also when it replaced the file after a
  // check by name) and maps it whole. Null, with `err` set in read_file's words, when it cannot. Should another
  // process shrink the file while it is mapped, a read past its new end ends the process with exit code 2 and a
  // message naming the file (report temporaries removed), instead of the SIGBUS a mapping gets.
  static std::shared_ptr<const MappedFile> open(const std::string& path, std::string& err);
  // The same bytes held in memory (tests; a file whose size is 0 maps nothing).
  static std::shared_ptr<const MappedFile> from_bytes(std::string bytes);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  // Gives the pages wholly inside [offset, offset + length) back to the system: they stay in the page cache and are
  // read again from it on the next touch. What a pass over the file calls behind itself, so that its resident size
  // stays a window however large the file is. Nothing for bytes held in memory.
  void release(size_t offset, size_t length) const;

 private:
  MappedFile() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  size_t guard_slot_ = static_cast<size_t>(-1);  // its entry in the SIGBUS guard's table (mapped_file.cpp)
  std::string owned_;                             // from_bytes
};

}  // namespace condlint::io
