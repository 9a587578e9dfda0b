// ptyhost/byte_codec.hpp: ByteWriter / ByteReader, the bounds-checked binary
// encoding of the live-upgrade state blob.
// Runs in: ptyhost, on serialize and on restore after re-exec.
// Never: crosses machines; integers and cells are in host byte order because
// the blob only travels from one ptyhost binary to its successor.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace signaltty::ptyhost {

class ByteWriter {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_bool(bool value) { put<std::uint8_t>(value ? 1 : 0); }
  void put_bytes(std::string_view bytes) {
    put<std::uint64_t>(bytes.size());
    out_.append(bytes);
  }
  std::string take() && { return std::move(out_); }

 private:
  std::string out_;
};

// Every read checks the remaining length; after the first failure ok() is
// false and every later read returns zero values.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  template <class T>
  bool get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!ok_ || in_.size() - pos_ < sizeof value) {
      value = T{};
      return fail();
    }
    std::memcpy(&value, in_.data() + pos_, sizeof value);
    pos_ += sizeof value;
    return true;
  }
  bool get_bool(bool& value) {
    std::uint8_t byte = 0;
    get(byte);
    value = byte == 1;
    return byte <= 1 ? ok_ : fail();
  }
  bool get_bytes(std::string& bytes, std::size_t max_bytes) {
    std::uint64_t size = 0;
    if (!get(size) || size > max_bytes || in_.size() - pos_ < size) return fail();
    bytes.assign(in_.substr(pos_, size));
    pos_ += size;
    return true;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }
  std::size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }
  bool fail() {
    ok_ = false;
    return false;
  }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace signaltty::ptyhost
