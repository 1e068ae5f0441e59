#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace condlint::io {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string& err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    err = std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    err = std::string("cannot read its status: ") + std::strerror(errno);
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    err = "is a directory";
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    err = "not a regular file (a FIFO, a device or a socket)";
    return nullptr;
  }
  std::shared_ptr<MappedFile> m(new MappedFile());
  if (st.st_size == 0) return m;
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    err = std::string("cannot map: ") + std::strerror(errno);
    return nullptr;
  }
  m->data_ = static_cast<const char*>(p);
  m->size_ = size;
  m->mapped_ = true;
  return m;
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string bytes) {
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->owned_ = std::move(bytes);
  m->data_ = m->owned_.data();
  m->size_ = m->owned_.size();
  return m;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::release(size_t offset, size_t length) const {
  if (!mapped_ || offset >= size_) return;
  const long page_l = ::sysconf(_SC_PAGESIZE);
  const size_t page = page_l > 0 ? static_cast<size_t>(page_l) : 4096;
  const size_t end = length > size_ - offset ? size_ : offset + length;
  const size_t from = (offset + page - 1) / page * page;
  const size_t to = end == size_ ? (end + page - 1) / page * page : end / page * page;
  if (to <= from) return;
  (void)::madvise(const_cast<char*>(data_) + from, to - from, MADV_DONTNEED);
}

}  // namespace condlint::io
