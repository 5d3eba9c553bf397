# SPDX-License-Identifier: Apache-2.0
# uartvp_add_plugin(TARGET source...): a plugin for the uartvp program (`uartvp run ... --plugin
# lib<TARGET>.so`), a shared module built against <uartvp/plugin.h>. The kernel-like API it calls is
# the program's own: the module is linked with its symbols undefined, and they resolve when the
# program loads it.
function(uartvp_add_plugin target)
  if(NOT ARGN)
    message(FATAL_ERROR "uartvp_add_plugin(${target}): no sources")
  endif()
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE uartvp::plugin_api)
  set_target_properties(${target} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
endfunction()
