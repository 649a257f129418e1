# Which folder may include which (docs/architecture.md). A folder's rule covers everything below
# it, unit tests included, unless a deeper folder has its own. Layers depend only downward:
#   platform/core <- models/* <- platform/config <- platform/system <- platform/report
#   <- platform/sweep, platform/cli; tests/ sits on top of everything.
set(TRAINVP_LAYER_RULES
  "platform/core:platform/core"
  "models/workload:platform/core,models/workload"
  "models/link:platform/core,models/link"
  "models/gpu:platform/core,models/workload,models/link,models/gpu"
  "models/cxl:platform/core,models/workload,models/link,models/cxl,rtl/driver"
  "models/aggregator:platform/core,models/link,models/aggregator"
  "models/nvswitch:platform/core,models/link,models/nvswitch"
  # Inside models/, each folder names the model folders it may include: collectives run over GPUs and
  # CXL devices but know nothing of parallelism or fail-slow, which sit on top of them.
  "models/collectives:platform/core,models/workload,models/link,models/gpu,models/cxl,models/collectives"
  "models/parallel:platform/core,models/workload,models/link,models/gpu,models/collectives,models/parallel"
  # Fail-slow health, one folder: the monitor, detector and probes over the engine and the GPUs;
  # its pure algorithms below it take the standard library only.
  "models/health:platform/core,models/workload,models/link,models/gpu,models/collectives,models/health"
  "models/health/algorithms:models/health/algorithms"
  # Real training in the loop: its own math over core's parameter sets.
  "models/train:platform/core,models/train"
  "platform/config:platform/core,models,platform/config"
  "platform/system:platform/core,models,platform/config,platform/system"
  "platform/report:platform/core,models,platform/config,platform/system,platform/report"
  "platform/sweep:platform/core,platform/config,platform/sweep"
  "platform/cli:platform,models"
  "rtl:platform/core,models/workload,models/cxl,rtl"
  # The Verilated engine's driver, shared by models/cxl and the RTL bench, stands on its own.
  "rtl/driver:rtl/driver")

# Checked on every build: a wrong-way include fails it, naming the file, the line and the rule.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  add_custom_target(layering ALL
    COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/check_layers.cmake
    COMMENT "Checking that every layer includes only the layers below it"
    VERBATIM)
  # And the unity check (cmake/check_unity.cmake): two files' local functions of one name would meet
  # in a unity batch; the check names them before the compiler quietly joins their overloads.
  if(TRAINVP_UNITY)
    add_custom_command(TARGET layering POST_BUILD
      COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR} -DDIRS=platform,models,rtl,tests
              -P ${CMAKE_SOURCE_DIR}/cmake/check_unity.cmake
      VERBATIM)
  endif()
  # Every library waits for the check, so a violation stops the build before anything links.
  foreach(lib trainvp_core trainvp_workload trainvp_link trainvp_gpu trainvp_cxl trainvp_aggregator trainvp_nvswitch trainvp_collectives trainvp_parallel trainvp_health_algorithms trainvp_health trainvp_train
              trainvp_config trainvp_system trainvp_report trainvp_report_html trainvp_sweep trainvp_cli)
    add_dependencies(${lib} layering)
  endforeach()
endif()
