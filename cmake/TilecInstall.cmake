# Installation of the public C++ API: one static library (libtilec.a, every component's
# objects, so a consumer links one file), include/tilec, the `tilec` CLI and a package
# config, so that a consumer project does
#   find_package(tilec REQUIRED)
#   target_link_libraries(app PRIVATE tilec::tilec)   # and ${TILEC_EXECUTABLE} is the CLI
if(SKBUILD)
  return() # the Python wheel (scikit-build-core) installs only the extension
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_tilec_objects)
foreach(part tilec_api tilec_aot tilec_cli tilec_pipeline tilec_sema tilec_syntax tilec_ir tilec_support
             tilec_transforms tilec_interp tilec_layout tilec_lower tilec_simt tilec_codegen
             tilec_simt_interp tilec_runtime)
  get_target_property(_type ${part} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY")
    list(APPEND _tilec_objects $<TARGET_OBJECTS:${part}>)
  endif()
endforeach()
add_library(tilec_bundle STATIC ${_tilec_objects})
set_target_properties(tilec_bundle PROPERTIES OUTPUT_NAME tilec)

install(TARGETS tilec_bundle ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tilec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/tilec
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/tilecConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilecConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilecConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tilecConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
