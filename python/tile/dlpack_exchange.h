/* What DLPack 1.x adds beside the 0.6 header Debian ships (libdlpack-dev):
 * the versioned managed tensor (DLPack 1.0) and the C exchange table of
 * DLPack 1.2, through which a framework hands a tensor to a C consumer
 * without building a capsule (`type(tensor).__dlpack_c_exchange_api__`, a
 * capsule named "dlpack_exchange_api"; the earlier spelling
 * `__c_dlpack_exchange_api__` may hold it or its address as an int).
 * Declared from the DLPack specification's field list; the layouts are the
 * specification's, so a producer built against dlpack.h 1.2 fills them. */
#ifndef PYTHON_TILE_DLPACK_EXCHANGE_H_
#define PYTHON_TILE_DLPACK_EXCHANGE_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

typedef struct {
  uint32_t major;
  uint32_t minor;
} TileDLPackVersion;

typedef struct TileDLManagedTensorVersioned {
  TileDLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct TileDLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} TileDLManagedTensorVersioned;

typedef struct TileDLPackExchangeAPIHeader {
  TileDLPackVersion version;
  struct TileDLPackExchangeAPIHeader* prev_api;
} TileDLPackExchangeAPIHeader;

/* Every function returns 0, or -1 with a Python exception set. `py_object`
 * must be of the type the table was found on. The *_no_sync functions leave
 * stream ordering to the consumer, who launches on current_work_stream. */
typedef struct {
  TileDLPackExchangeAPIHeader header;
  void* managed_tensor_allocator; /* not used here */
  int (*managed_tensor_from_py_object_no_sync)(void* py_object,
                                               TileDLManagedTensorVersioned** out);
  void* managed_tensor_to_py_object_no_sync; /* not used here */
  /* May be NULL. Fills `out` without allocating; its shape and strides stay
   * the producer's and are valid until control returns to Python. */
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);
  int (*current_work_stream)(DLDeviceType device_type, int32_t device_id, void** out_stream);
} TileDLPackExchangeAPI;

#define TILE_DLPACK_EXCHANGE_MAJOR 1

#endif /* PYTHON_TILE_DLPACK_EXCHANGE_H_ */
