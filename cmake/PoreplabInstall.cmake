# `cmake --install` and CPack (.deb, .tar.gz): bin/poreplab, the experiments' configs, data,
# machines and plots in share/poreplab (where an installed poreplab finds them, as
# bin/../share/poreplab: experiments/src/util/share_dir.hpp), README.md and docs/ in
# share/doc/poreplab (not docs/results: measurements of particular machines). The datasets'
# records and READMEs go to share/poreplab/reference: the GPUs measured elsewhere that the
# verdict shows where a machine has none (experiments/src/report/reference.hpp).
include(GNUInstallDirs)

install(TARGETS poreplab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# A CUDA build's kernels and their SASS are shared libraries: private ones, beside the binary.
if(TARGET poreplab_cuda)
  set(_pl_libdir ${CMAKE_INSTALL_LIBDIR}/poreplab)
  install(TARGETS poreplab_cuda poreplab_gpu_sass LIBRARY DESTINATION ${_pl_libdir})
  set_target_properties(poreplab PROPERTIES INSTALL_RPATH "$ORIGIN/../${_pl_libdir}")
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/cuda ${CMAKE_BINARY_DIR}/experiments)
endif()
set(_pl_share ${CMAKE_INSTALL_DATADIR}/poreplab)
install(DIRECTORY experiments/configs experiments/data experiments/machines DESTINATION ${_pl_share})
install(DIRECTORY docs/results/ DESTINATION ${_pl_share}/reference FILES_MATCHING PATTERN "records.jsonl" PATTERN "README.md")
install(FILES experiments/plots/plot.py experiments/plots/requirements.txt experiments/plots/README.md
  DESTINATION ${_pl_share}/plots)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md" PATTERN results EXCLUDE)

set(CPACK_GENERATOR DEB TGZ)
set(CPACK_PACKAGE_NAME poreplab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "poreplab developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Filecoin PoRep (SDR) labeling benchmark for CPUs and GPUs")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS python3-matplotlib)
find_program(POREPLAB_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(POREPLAB_DPKG_SHLIBDEPS)
if(POREPLAB_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libssl3, libgomp1, libhwloc15, libstdc++6")
  if(LIBURING_FOUND)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", liburing2")
  endif()
endif()
include(CPack)
