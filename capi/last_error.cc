// The thread-local last error and the mapping of absl status codes onto
// tile_status: bindings raise one exception type per tile_status.
#include <string>

#include "absl/strings/str_cat.h"
#include "capi/handles.h"
#include "capi/tile.h"

namespace tile_ir::capi {
namespace {

thread_local std::string last_error;

tile_status StatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return TILE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition: return TILE_ERROR_INVALID_ARGUMENT;
    case absl::StatusCode::kNotFound: return TILE_ERROR_NOT_FOUND;
    case absl::StatusCode::kUnavailable: return TILE_ERROR_UNAVAILABLE;
    default: return TILE_ERROR_INTERNAL;
  }
}

}  // namespace

tile_status Report(const absl::Status& status) {
  if (!status.ok()) last_error = std::string(status.message());
  return StatusOf(status.code());
}

tile_status NullArgument(const char* function, const char* argument) {
  return Report(absl::InvalidArgumentError(absl::StrCat(function, ": ", argument, " is NULL")));
}

}  // namespace tile_ir::capi

extern "C" {

int tile_api_version(void) { return TILE_API_VERSION; }

const char* tile_last_error(void) { return tile_ir::capi::last_error.c_str(); }

const char* tile_status_name(tile_status status) {
  switch (status) {
    case TILE_OK: return "ok";
    case TILE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case TILE_ERROR_NOT_FOUND: return "not found";
    case TILE_ERROR_UNAVAILABLE: return "unavailable";
    case TILE_ERROR_INTERNAL: return "internal";
  }
  return "unknown status";
}

}  // extern "C"
