/*
 * axle plugin ABI — the only header a device plugin needs.
 *
 * Standalone C (C11 and C++): depends on <stddef.h> and <stdint.h> only.
 * Rules (see plugin-sdk/CHANGELOG.md and the plugin guide, plugin-abi.md,
 * installed beside the changelog):
 *   - Every struct that crosses the boundary starts with `struct_size`; fields are
 *     append-only. A reader checks struct_size before touching a field added in a
 *     later minor version. Whoever fills a struct sets its struct_size: the
 *     plugin for its tables and descriptor, the core for everything it passes
 *     in, including the out-structs it hands a plugin to fill ([out] below:
 *     the core zeroes them and sets struct_size first).
 *   - Lifetimes: a pointer marked [borrowed] is valid only for the call it is
 *     passed to (copy what must outlive it); [copied] means the core copies
 *     it during the call, so the plugin's memory may go afterwards; [static]
 *     means it must stay valid while the plugin is loaded (plugins are never
 *     unloaded).
 *   - ABI major must match exactly; the core accepts any plugin minor <= its own.
 *   - No C++ type and no exception crosses the boundary. Functions return an
 *     axle_status; the message goes through axle_host_api.set_error.
 *   - Registration is explicit: the core calls `register_plugin` once, after it has
 *     checked the descriptor. No static initializers are needed.
 */
#ifndef AXLE_PLUGIN_H_
#define AXLE_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AXLE_ABI_MAJOR 1
#define AXLE_ABI_MINOR 4

/* The one symbol a plugin exports. */
#define AXLE_PLUGIN_ENTRY_SYMBOL "axle_plugin_get_descriptor"

#if defined(_WIN32)
#define AXLE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define AXLE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------- status */
typedef int32_t axle_status;
enum {
  AXLE_OK = 0,
  /* The kernel will not serve this call (dtype, rank, layout...). It must not
   * have written any output. The dispatcher tries the next candidate. */
  AXLE_DECLINED = 1,
  AXLE_ERROR_INVALID_ARGUMENT = 2, /* becomes ValueError */
  AXLE_ERROR_SHAPE = 3,            /* ShapeError */
  AXLE_ERROR_DTYPE = 4,            /* DTypeError */
  AXLE_ERROR_INDEX = 5,            /* IndexError */
  AXLE_ERROR_OUT_OF_MEMORY = 6,    /* OutOfMemoryError */
  AXLE_ERROR_NOT_IMPLEMENTED = 7,  /* NotImplementedError */
  AXLE_ERROR_DEVICE = 8,           /* DeviceError */
  AXLE_ERROR_INTERNAL = 9          /* Error */
};

/* ---------------------------------------------------------------- dtypes */
/* Fixed numbering: part of the ABI. */
typedef int32_t axle_dtype;
enum {
  AXLE_DTYPE_FLOAT32 = 0,
  AXLE_DTYPE_FLOAT64 = 1,
  AXLE_DTYPE_FLOAT16 = 2,
  AXLE_DTYPE_BFLOAT16 = 3,
  AXLE_DTYPE_INT8 = 4,
  AXLE_DTYPE_UINT8 = 5,
  AXLE_DTYPE_INT16 = 6,
  AXLE_DTYPE_INT32 = 7,
  AXLE_DTYPE_INT64 = 8,
  AXLE_DTYPE_BOOL = 9,
  AXLE_DTYPE_COUNT_V1 = 10
};

/* ---------------------------------------------------------------- logging */
enum { AXLE_LOG_TRACE = 0, AXLE_LOG_DEBUG = 1, AXLE_LOG_INFO = 2, AXLE_LOG_WARN = 3, AXLE_LOG_ERROR = 4 };

/* ---------------------------------------------------------------- tensors */
/* A strided view of device memory. `data` is the address the device's
 * allocate returned plus the storage offset in bytes, and may be a device
 * pointer that the host must not dereference. Strides are in elements and may
 * be 0 (broadcast), never negative (axle has no negative strides). [borrowed]:
 * the view and its sizes/strides arrays are valid only for the call they are
 * passed to. */
typedef struct axle_tensor_view {
  size_t struct_size;
  void* data;
  axle_dtype dtype;
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides;
  int32_t device_index;
  /* ABI 1.4: AXLE_VIEW_* bits (0 before; the field was reserved0). */
  int32_t flags;
} axle_tensor_view;

enum {
  /* ABI 1.4: a 0-dim tensor in host memory (a Python number, or a 0-dim CPU
   * tensor joining device tensors) given to a kernel registered with
   * AXLE_KERNEL_HOST_SCALARS: `data` points to one element of `dtype` that the
   * host reads (plugin::host_scalar); pass the value to the device by value, as
   * a kernel argument. Kernels without that flag never see it: the core copies
   * such scalars to the device for them. */
  AXLE_VIEW_HOST_SCALAR = 1
};

/* ---------------------------------------------------------------- boxed values */
typedef int32_t axle_value_tag;
enum {
  AXLE_VALUE_NONE = 0,
  AXLE_VALUE_TENSOR = 1,      /* u.tensor */
  AXLE_VALUE_TENSOR_LIST = 2, /* u.tensors */
  AXLE_VALUE_INT = 3,         /* u.i */
  AXLE_VALUE_INT_LIST = 4,    /* u.ints */
  AXLE_VALUE_DOUBLE = 5,      /* u.f */
  AXLE_VALUE_BOOL = 6,        /* u.i (0 or 1) */
  AXLE_VALUE_STRING = 7,      /* u.str (NUL-terminated) */
  AXLE_VALUE_DTYPE = 8,       /* u.i (an axle_dtype) */
  AXLE_VALUE_DEVICE = 9       /* u.device */
};

typedef struct axle_value {
  axle_value_tag tag;
  int32_t reserved0;
  union {
    const axle_tensor_view* tensor;
    struct {
      const axle_tensor_view* items;
      int64_t count;
    } tensors;
    int64_t i;
    struct {
      const int64_t* items;
      int64_t count;
    } ints;
    double f;
    const char* str;
    struct {
      const char* type;
      int32_t index;
    } device;
  } u;
} axle_value;

struct axle_host_api;

/* One kernel invocation, [borrowed] (valid during the kernel call only).
 * Inputs are the op's schema arguments in schema order (a Scalar argument
 * arrives as INT, DOUBLE or BOOL). Outputs are allocated by the core on the
 * target device from the op's shape function, except for ops whose output
 * shape depends on the data: there `outputs[i].data` is NULL and the kernel
 * calls host->allocate_output. An in-place variant (`add_`) without its own
 * kernel reaches the functional kernel (`add.Tensor`) with outputs[0] being the
 * same memory as an input: kernels must tolerate that aliasing. Kernels are
 * called from several threads at once. */
typedef struct axle_kernel_call {
  size_t struct_size;
  const char* op_name; /* "add.Tensor" */
  const char* schema;  /* the full schema string */
  const axle_value* args;
  int32_t num_args;
  int32_t num_outputs;
  axle_tensor_view* outputs;
  void* stream; /* current stream of the target device (NULL: default stream) */
  const struct axle_host_api* host;
  void* call_context; /* opaque: pass back to host callbacks */
} axle_kernel_call;

/* A kernel: fills call->outputs. `user_data` is what was given at registration. */
typedef axle_status (*axle_kernel_fn)(void* user_data, const axle_kernel_call* call);

/* ---------------------------------------------------------------- host API */
/* Provided by the core; valid for the life of the process. */
typedef struct axle_host_api {
  size_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  uint32_t reserved0;
  /* Log through the shared `axle` logger. Thread-safe. */
  void (*log)(int32_t level, const char* plugin_name, const char* message);
  /* Attach a message [copied] to the error status the current kernel is about
   * to return. */
  void (*set_error)(void* call_context, const char* message);
  /* Data-dependent outputs: allocate output `index` with the given dtype and
   * sizes (contiguous) on the target device and describe it in *out [out]. */
  axle_status (*allocate_output)(void* call_context, int32_t index, axle_dtype dtype, int32_t ndim,
                                 const int64_t* sizes, axle_tensor_view* out);
  /* A plugin option from the configuration (plugins.<name>.options.<key>) as a
   * JSON text in a buffer owned by the core (valid until the calling thread's
   * next get_option), or NULL when unset. With plugin_name NULL, `key` is any
   * dotted configuration key (docs/config.md) such as "cpu.threads". */
  const char* (*get_option)(const char* plugin_name, const char* key);
  /* ---- ABI 1.4 (check struct_size; plugin::decline does).
   * Why the current kernel is about to return AXLE_DECLINED [copied]; the
   * core shows it in `axle explain`, trace events, `axle check` and the error
   * raised when every candidate declined. (Before 1.4 a set_error message
   * attached to AXLE_DECLINED is taken as the reason too.) */
  void (*set_decline_reason)(void* call_context, const char* reason);
} axle_host_api;
/* The size of ABI 1.3's host API (everything up to get_option). */
#define AXLE_HOST_API_SIZE_V1_3 (offsetof(axle_host_api, set_decline_reason))

/* ---------------------------------------------------------------- devices */
/* [out] of get_properties: the core zeroes it and sets struct_size. */
typedef struct axle_device_properties {
  size_t struct_size;
  char name[128];
  uint64_t total_memory;   /* bytes, 0 if unknown */
  int32_t host_accessible; /* 1: the host may dereference device pointers */
  int32_t reserved0;
} axle_device_properties;

/* [out] of allocator_stats: the core zeroes it and sets struct_size; the
 * plugin fills the counters (and may overwrite struct_size with its own). */
typedef struct axle_allocator_stats {
  size_t struct_size;
  uint64_t allocated_bytes;      /* currently handed out */
  uint64_t reserved_bytes;       /* held from the system, incl. cache */
  uint64_t peak_allocated_bytes; /* since start */
  uint64_t num_allocs;
  uint64_t num_frees;
} axle_allocator_stats;

typedef int32_t axle_copy_kind;
enum { AXLE_COPY_HOST_TO_DEVICE = 0, AXLE_COPY_DEVICE_TO_HOST = 1, AXLE_COPY_DEVICE_TO_DEVICE = 2 };

typedef void* axle_stream; /* NULL means the device's default stream */
typedef void* axle_event;

/* The runtime of one device type, [copied] by register_device_type (the
 * strings and `self` it points to are [static]). `self` is passed back to
 * every function. All functions are thread-safe: the core calls them from
 * several threads at once. Memory copies move contiguous bytes; strided copies
 * are the job of the `copy_` kernel. `stream` NULL (the default stream): the
 * call completes before it returns, after the work already queued on the
 * device's streams that it depends on (a device with asynchronous streams
 * orders a NULL-stream copy after them, as CUDA's legacy default stream does).
 * Non-NULL: it is ordered on that stream and may return early.
 * Device memory: `allocate` returns an address the core never dereferences
 * (unless the device is host_accessible) but offsets by whole bytes (views
 * into storage) and compares (aliasing and overlap checks), so a device whose
 * memory is a handle (cl_mem, VkBuffer) hands out unique fake addresses it can
 * map back (plugin::HandleAddressSpace in address_space.hpp). allocate(0) is
 * called for empty tensors: return a non-NULL address (never dereferenced)
 * that deallocate accepts. Out-pointers are [out]. */
typedef struct axle_device_interface {
  size_t struct_size;
  const char* type_name; /* "cpu" is the host */
  void* self;
  axle_status (*device_count)(void* self, int32_t* count);
  axle_status (*get_properties)(void* self, int32_t index, axle_device_properties* props);
  axle_status (*allocate)(void* self, int32_t index, size_t nbytes, void** ptr);
  axle_status (*deallocate)(void* self, int32_t index, void* ptr, size_t nbytes);
  axle_status (*copy)(void* self, axle_copy_kind kind, int32_t device_index, void* dst, const void* src, size_t nbytes,
                      axle_stream stream);
  axle_status (*synchronize)(void* self, int32_t index);
  axle_status (*stream_create)(void* self, int32_t index, axle_stream* stream);
  axle_status (*stream_destroy)(void* self, int32_t index, axle_stream stream);
  axle_status (*stream_synchronize)(void* self, int32_t index, axle_stream stream);
  axle_status (*event_create)(void* self, int32_t index, axle_event* event);
  axle_status (*event_destroy)(void* self, int32_t index, axle_event event);
  axle_status (*event_record)(void* self, int32_t index, axle_event event, axle_stream stream);
  axle_status (*event_synchronize)(void* self, int32_t index, axle_event event);
  axle_status (*stream_wait_event)(void* self, int32_t index, axle_stream stream, axle_event event);
  axle_status (*allocator_stats)(void* self, int32_t index, axle_allocator_stats* stats);
  axle_status (*empty_cache)(void* self, int32_t index);
  /* Last error text of this device type, for statuses returned outside a kernel
   * call (may be NULL). After device_count reports zero devices, the reason
   * ("no driver", "no GPU") which the core shows in `axle info` and errors. */
  const char* (*last_error)(void* self);
  /* ---- ABI 1.1 (read only when struct_size covers them; NULL: unsupported).
   * Page-locked ("pinned") host memory for this device type: host memory its
   * stream-ordered copies read and write asynchronously (cudaHostAlloc). The
   * host dereferences it like any host memory. */
  axle_status (*host_alloc)(void* self, size_t nbytes, void** ptr);
  axle_status (*host_free)(void* self, void* ptr);
  /* ---- ABI 1.2 (read only when struct_size covers them; NULL: unsupported).
   * Stream-ordered allocation (PyTorch's caching allocator contract). The core
   * calls allocate_on_stream instead of allocate, passing the caller's current
   * stream of that device: the memory is for work enqueued on `stream` from
   * now on, and once `deallocate`d it may be handed out again at once to later
   * work on that same stream (stream order keeps it safe) but to another stream
   * only after the work queued on `stream` has completed. record_stream says
   * that work on another `stream` uses the block `ptr` (the start of a block
   * this device allocated) too: its reuse then also waits for the work queued
   * on that stream up to the deallocate (torch's Tensor.record_stream). */
  axle_status (*allocate_on_stream)(void* self, int32_t index, size_t nbytes, axle_stream stream, void** ptr);
  axle_status (*record_stream)(void* self, int32_t index, void* ptr, axle_stream stream);
  /* ---- ABI 1.3 (read only when struct_size covers it; NULL: unsupported).
   * Copies `nbytes` contiguous bytes from `src` on device `src_index` to `dst`
   * on device `dst_index` (two devices of this type) without staging through
   * host memory (cudaMemcpyPeerAsync). `stream` is a stream of the destination
   * device, NULL its default stream: then the copy completes before the call
   * returns. The core has waited for the work queued on the source device's
   * current stream before calling. Without it, copies between two devices of
   * this type go through host memory. */
  axle_status (*copy_peer)(void* self, int32_t dst_index, void* dst, int32_t src_index, const void* src, size_t nbytes,
                           axle_stream stream);
} axle_device_interface;
/* The size of ABI 1.0's axle_device_interface (everything up to last_error). */
#define AXLE_DEVICE_INTERFACE_SIZE_V1_0 (offsetof(axle_device_interface, host_alloc))
/* The size of ABI 1.1's axle_device_interface (everything up to host_free). */
#define AXLE_DEVICE_INTERFACE_SIZE_V1_1 (offsetof(axle_device_interface, allocate_on_stream))
/* The size of ABI 1.2's axle_device_interface (everything up to record_stream). */
#define AXLE_DEVICE_INTERFACE_SIZE_V1_2 (offsetof(axle_device_interface, copy_peer))

/* ---------------------------------------------------------------- registration */
enum {
  /* ABI 1.4: the kernel reads 0-dim host tensors itself (AXLE_VIEW_HOST_SCALAR):
   * `x * 2.0` on the device then needs no upload of 2.0. */
  AXLE_KERNEL_HOST_SCALARS = 1
};

/* ABI 1.4: one kernel binding, named fields (register_kernel_entry). */
typedef struct axle_kernel_entry {
  size_t struct_size;
  const char* op_name;     /* "add.Tensor" */
  const char* device_type; /* "arena" */
  axle_kernel_fn fn;
  void* user_data;
  const char* provenance; /* "file:line", shown by `axle explain` */
  uint32_t flags;         /* AXLE_KERNEL_* bits */
  uint32_t reserved0;
} axle_kernel_entry;

typedef struct axle_registrar {
  size_t struct_size;
  void* context;
  const axle_host_api* host;
  /* Provide the runtime of a device type named in the descriptor; `iface` is
   * [copied]. */
  axle_status (*register_device_type)(void* context, const axle_device_interface* iface);
  /* Bind a kernel for (op, device type). `op_name` is "name.overload" of an
   * operator the core declares (`axle ops` lists them); `provenance` is a short
   * "file:line" or symbol shown by `axle explain`. Strings are [copied]. */
  axle_status (*register_kernel)(void* context, const char* op_name, const char* device_type, axle_kernel_fn fn,
                                 void* user_data, const char* provenance);
  /* A boxed fallback: receives every op of `device_type` that has no kernel. */
  axle_status (*register_fallback)(void* context, const char* device_type, axle_kernel_fn fn, void* user_data,
                                   const char* provenance);
  /* ---- ABI 1.4 (check struct_size; plugin::register_kernels does).
   * register_kernel with flags (AXLE_KERNEL_*): `kernel` and its strings are
   * [copied]. */
  axle_status (*register_kernel_entry)(void* context, const struct axle_kernel_entry* kernel);
} axle_registrar;
/* The size of ABI 1.3's registrar (everything up to register_fallback). */
#define AXLE_REGISTRAR_SIZE_V1_3 (offsetof(axle_registrar, register_kernel_entry))

/* What axle_plugin_get_descriptor returns: [static]. */
typedef struct axle_plugin_descriptor {
  size_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  uint32_t reserved0;
  const char* name;                /* unique, [a-z0-9_]+ */
  const char* version;             /* the plugin's own version */
  const char* const* device_types; /* device types it serves kernels for */
  int32_t num_device_types;
  int32_t default_rank; /* higher wins among plugins serving a device type */
  /* Called once by the core. Returns AXLE_OK or an error status; attach the reason
   * with registrar->host->set_error(registrar->context, message). On error nothing
   * the plugin registered is kept and the plugin is listed as rejected. */
  axle_status (*register_plugin)(const axle_registrar* registrar);
  /* ---- ABI 1.4 (read only when struct_size covers it; NULL: none).
   * One line on what is behind the plugin ("oneDNN 3.0.0, AVX-512"), shown by
   * `axle info` and `axle explain`; [copied] after register_plugin returns,
   * so register_plugin may still change it. */
  const char* description;
} axle_plugin_descriptor;
/* The size of ABI 1.3's axle_plugin_descriptor (everything up to register_plugin). */
#define AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3 (offsetof(axle_plugin_descriptor, description))

typedef const axle_plugin_descriptor* (*axle_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AXLE_PLUGIN_H_ */
