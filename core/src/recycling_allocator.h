// RecyclingAllocator<T>: an allocator for std::allocate_shared that keeps freed
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

template <size_t Size>
class FreeList {
 public:
  static void* pop() noexcept {
    List& l = list_;
    if (gone_ || !l.head) return nullptr;
    Node* n = l.head;
    l.head = n->next;
    --l.count;
    return n;
  }
  static bool push(void* p) noexcept {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)p;
    return false;  // sanitizers see every block freed
#else
    List& l = list_;
    if (gone_ || l.count >= kMaxBlocks) return false;
    l.head = new (p) Node{l.head};
    ++l.count;
    return true;
#endif
  }

 private:
  static constexpr int kMaxBlocks = 256;
  struct Node {
    Node* next;
  };
  struct List {
    Node* head = nullptr;
    int count = 0;
    ~List() {
      gone_ = true;
      while (head) {
        Node* n = head;
        head = n->next;
        ::operator delete(n);
      }
    }
  };
  static thread_local List list_;
  static thread_local bool gone_;
};
template <size_t Size>
thread_local typename FreeList<Size>::List FreeList<Size>::list_;
template <size_t Size>
thread_local bool FreeList<Size>::gone_ = false;

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
