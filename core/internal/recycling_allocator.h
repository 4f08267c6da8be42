// Internal to libaxle (core/internal: shared by the core's tensors and the
// dispatcher's argument values). RecyclingAllocator<T>: an allocator for std::allocate_shared that keeps freed
// single blocks on a per-thread free list. Every allocating op call creates
// and destroys a TensorImpl and a StorageImpl (each with its shared_ptr
// control block); taking the block from the list costs a fraction of a
// malloc/free pair. A block freed on another thread joins that thread's list.
// After a thread's list is destroyed (frees from late destructors), blocks go
// straight to operator new/delete.
#pragma once

#include <cstddef>
#include <new>

namespace axle::detail {

// The thread's list is plain data (no constructor, no destructor), so reaching
// it needs no lazy-initialisation wrapper. A thread-exit hook, registered on
// the first push, frees the cached blocks and closes the list.
template <size_t Size>
class FreeList {
 public:
  static void* pop() noexcept {
    State& s = state_;
    Node* n = s.head;
    if (!n) return nullptr;
    s.head = n->next;
    --s.count;
    return n;
  }
  static bool push(void* p) noexcept {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)p;
    return false;  // sanitizers see every block freed
#else
    State& s = state_;
    if (s.closed || s.count >= kMaxBlocks) return false;
    if (!s.hooked) {
      s.hooked = true;
      static thread_local Reaper reaper;  // its destructor runs at thread exit
      (void)reaper;
    }
    s.head = new (p) Node{s.head};
    ++s.count;
    return true;
#endif
  }

 private:
  static constexpr int kMaxBlocks = 256;
  struct Node {
    Node* next;
  };
  struct State {
    Node* head;
    int count;
    bool hooked;
    bool closed;  // after thread exit: frees from late destructors go to operator delete
  };
  struct Reaper {
    ~Reaper() {
      State& s = state_;
      s.closed = true;
      while (Node* n = s.head) {
        s.head = n->next;
        ::operator delete(n);
      }
      s.count = 0;
    }
  };
  static thread_local State state_;
};
template <size_t Size>
thread_local typename FreeList<Size>::State FreeList<Size>::state_{};

template <typename T>
struct RecyclingAllocator {
  using value_type = T;
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  RecyclingAllocator() noexcept = default;
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    if (n == 1)
      if (void* p = FreeList<sizeof(T)>::pop()) return static_cast<T*>(p);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n == 1 && FreeList<sizeof(T)>::push(p)) return;
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const RecyclingAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace axle::detail
