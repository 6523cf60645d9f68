#include "wgx/version.h"

#include "wgx/wgx.h"

namespace wgx {

std::string_view version() { return WGX_VERSION_STRING; }

}  // namespace wgx
