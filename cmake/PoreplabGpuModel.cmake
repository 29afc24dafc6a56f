# Inputs of the GPU latency model (experiments/src/model/gpu_model.cpp), compiled into the
# target given to poreplab_gpu_model_sources():
#  - gpu_model_sass.cpp: the SASS of the labeling and hash-chain kernels of every
#    architecture in poreplab_cuda, extracted after each rebuild of that library by
#    cmake/sass_embed.cmake (cuobjdump -sass), or a note saying why there is none;
#  - gpu_latency_json.hpp: experiments/data/gpu-latency.json, the default latency table.
set(_pl_gm_dir ${CMAKE_CURRENT_LIST_DIR})

function(poreplab_gpu_model_sources target)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/generated)
  set(sass_cpp ${gen}/gpu_model_sass.cpp)
  set(script ${_pl_gm_dir}/sass_embed.cmake)
  if(POREPLAB_HAVE_CUDA)
    if(NOT POREPLAB_CUOBJDUMP)
      # Toolkits installed without cuobjdump get it from the project's venv: scripts/setup
      # installs NVIDIA's cuobjdump/nvdisasm wheels there (cmake/cuda-tools-requirements.txt).
      file(GLOB _pl_venv_cuda_bins ${PROJECT_SOURCE_DIR}/.venv/lib/python*/site-packages/nvidia/cu*/bin)
      find_program(POREPLAB_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin ${_pl_venv_cuda_bins}
                   DOC "cuobjdump, for the SASS of the GPU latency model")
    endif()
    if(POREPLAB_CUOBJDUMP)
      add_custom_command(OUTPUT ${sass_cpp}
        COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${POREPLAB_CUOBJDUMP} -DLIB=$<TARGET_FILE:poreplab_cuda>
                -DOUT=${sass_cpp} -P ${script}
        DEPENDS poreplab_cuda ${script}
        COMMENT "Extracting the kernels' SASS for the GPU latency model (cuobjdump -sass)"
        VERBATIM)
    else()
      message(STATUS "cuobjdump not found: `poreplab model gpu` will have no SASS to analyse")
      execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${sass_cpp}
        "-DNOTE=no SASS in this build (cuobjdump was not found when the build was configured)" -P ${script})
    endif()
  else()
    execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${sass_cpp}
      "-DNOTE=no SASS in this build (built without CUDA)" -P ${script})
  endif()
  # The generated file holds megabytes of string literals; warnings flags stay, but it
  # needs no optimisation. With CUDA it is a shared library of its own, so that poreplab
  # and poreplab_tests (and the GPU bundle) carry the text once.
  set_source_files_properties(${sass_cpp} PROPERTIES COMPILE_OPTIONS "-O0;-g0")
  if(POREPLAB_HAVE_CUDA)
    add_library(poreplab_gpu_sass SHARED ${sass_cpp})
    target_include_directories(poreplab_gpu_sass PRIVATE ${PROJECT_SOURCE_DIR}/experiments/src)
    target_link_libraries(poreplab_gpu_sass PRIVATE poreplab_warnings)
    target_link_libraries(${target} PUBLIC poreplab_gpu_sass)
  else()
    target_sources(${target} PRIVATE ${sass_cpp})
  endif()

  set(data ${PROJECT_SOURCE_DIR}/experiments/data/gpu-latency.json)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${data})
  file(READ ${data} POREPLAB_GPU_LATENCY_JSON)
  string(FIND "${POREPLAB_GPU_LATENCY_JSON}" ")poreplab_json\"" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "${data} contains the raw-string delimiter )poreplab_json\"")
  endif()
  file(CONFIGURE OUTPUT ${gen}/gpu_latency_json.hpp @ONLY CONTENT
"#pragma once
// Generated from experiments/data/gpu-latency.json by cmake/PoreplabGpuModel.cmake.
namespace poreplab::gpu_model {
inline constexpr const char* kDefaultLatencyJson = R\"poreplab_json(@POREPLAB_GPU_LATENCY_JSON@)poreplab_json\";
inline constexpr const char* kDefaultLatencyName = \"experiments/data/gpu-latency.json\";
}  // namespace poreplab::gpu_model
")
  target_include_directories(${target} PRIVATE ${gen})
endfunction()
