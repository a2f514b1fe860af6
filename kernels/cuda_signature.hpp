#pragma once
// The signature of the interface between netdp and its CUDA module (docs/cuda_loader.md "The signature"),
// computed from the lists of cuda_engines.hpp. Host compiler only: nvcc's front end rejects offsetof on the
// reference members of the problem structs, so the engines' .cu files include cuda_module.hpp, not this.
#include <cstddef>
#include <string>
#include <typeinfo>

#include "cuda_module.hpp"

namespace netdp::kernels {

/// The first item of every signature since layouts are in it; a module whose signature does not start with it
/// is older and its table's `build` cannot be read.
inline constexpr const char* kCudaSignatureVersion = "netdp CUDA module interface 2;";

// The items, appended out of line: the signature function is then a list of calls with constant arguments.
// Written as string concatenations inline, its hundreds of items took GCC over a minute and a half per file
// at -O3 (docs/reliability.md §5 "Compile time").
namespace signature_items {
[[gnu::noinline]] inline void sized(std::string& s, const char* kind, const char* name, std::size_t size) {
  s.append(kind).append(" ").append(name).append(" size ").append(std::to_string(size));
}
[[gnu::noinline]] inline void end(std::string& s) {
  s.push_back(';');
}
[[gnu::noinline]] inline void member(std::string& s, const char* name, const char* member, std::size_t offset,
                                     std::size_t size) {
  s.append(name).append(".").append(member).append(" at ").append(std::to_string(offset));
  s.append(" size ").append(std::to_string(size)).push_back(';');
}
[[gnu::noinline]] inline void align(std::string& s, std::size_t alignment) {
  s.append(" align ").append(std::to_string(alignment)).push_back(';');
}
[[gnu::noinline]] inline void method(std::string& s, const char* name, const char* method, const char* type) {
  s.append(name).append("::").append(method).append(" ").append(type).push_back(';');
}
[[gnu::noinline]] inline void enumerator(std::string& s, const char* name, const char* enumerator,
                                         long long value) {
  s.append(name).append("::").append(enumerator).append(" = ").append(std::to_string(value)).push_back(';');
}
}  // namespace signature_items

// Appends the layout of struct T (size, alignment, each member's offset and size) to s, one item per ';'.
// Several of these structs hold references or library types, which makes them non-standard-layout: offsetof
// is conditionally supported there, and GCC gives the ABI's offset (no virtual bases here). A reference
// member's size is its referent's.
#define NETDP_CUDA_LAYOUT_STRUCT(T, members)                                   \
  {                                                                            \
    using Type = T;                                                            \
    const char* name = #T;                                                     \
    ::netdp::kernels::signature_items::sized(s, "struct", name, sizeof(Type)); \
    ::netdp::kernels::signature_items::align(s, alignof(Type));                \
    members                                                                    \
  }
#define NETDP_CUDA_LAYOUT_MEMBER(m) \
  ::netdp::kernels::signature_items::member(s, name, #m, offsetof(Type, m), sizeof(decltype(Type::m)));

// Appends the size of polymorphic class T and the type of each of its virtual methods.
#define NETDP_CUDA_INTERFACE_CLASS(T, methods)                                \
  {                                                                           \
    using Type = T;                                                           \
    const char* name = #T;                                                    \
    ::netdp::kernels::signature_items::sized(s, "class", name, sizeof(Type)); \
    ::netdp::kernels::signature_items::end(s);                                \
    methods                                                                   \
  }
#define NETDP_CUDA_INTERFACE_METHOD(f) \
  ::netdp::kernels::signature_items::method(s, name, #f, typeid(decltype(&Type::f)).name());

// Appends the size of enumeration T and the value of each of its enumerators.
#define NETDP_CUDA_ENUM(T, enumerators)                                      \
  {                                                                          \
    using Type = T;                                                          \
    const char* name = #T;                                                   \
    ::netdp::kernels::signature_items::sized(s, "enum", name, sizeof(Type)); \
    ::netdp::kernels::signature_items::end(s);                               \
    enumerators                                                              \
  }
#define NETDP_CUDA_ENUMERATOR(v) \
  ::netdp::kernels::signature_items::enumerator(s, name, #v, static_cast<long long>(Type::v));

/// What a module must agree on with netdp, one item per ';': the layouts of NETDP_CUDA_LAYOUTS, the classes
/// of NETDP_CUDA_INTERFACES and the enumerations of NETDP_CUDA_ENUMS, the mangled types of the table's
/// functions. The same string in netdp and in a module built from the same interface headers by the same
/// compiler.
inline std::string cuda_module_signature() {
  std::string s = kCudaSignatureVersion;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  NETDP_CUDA_LAYOUTS(NETDP_CUDA_LAYOUT_STRUCT, NETDP_CUDA_LAYOUT_MEMBER)
#pragma GCC diagnostic pop
  NETDP_CUDA_INTERFACES(NETDP_CUDA_INTERFACE_CLASS, NETDP_CUDA_INTERFACE_METHOD)
  NETDP_CUDA_ENUMS(NETDP_CUDA_ENUM, NETDP_CUDA_ENUMERATOR)
  ::netdp::kernels::signature_items::sized(s, "struct", "CudaBackendTable", sizeof(CudaBackendTable));
  ::netdp::kernels::signature_items::end(s);
  const auto function = [&s](const char* name, const std::type_info& type) {
    s += std::string(name) + " " + type.name() + ";";
  };
  function("device_count", typeid(decltype(CudaBackendTable::device_count)));
  function("device_count_error", typeid(decltype(CudaBackendTable::device_count_error)));
  function("device_name", typeid(decltype(CudaBackendTable::device_name)));
  function("copy_bandwidth", typeid(decltype(CudaBackendTable::copy_bandwidth)));
#define NETDP_CUDA_SIGNATURE_ENGINE(name, ...) function(#name, typeid(decltype(&name)));
  NETDP_CUDA_ENGINES(NETDP_CUDA_SIGNATURE_ENGINE)
#undef NETDP_CUDA_SIGNATURE_ENGINE
  return s;
}

}  // namespace netdp::kernels
