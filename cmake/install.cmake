# install.cmake — what `cmake --install` (and scripts/install.sh over it) puts in a
# prefix beyond the binary and the Python helper (src/cli) and the C++ SDK's package
# (sdk/cpp): the man page and bash/zsh completion, written at build time by the built
# binary from its own CLI11 parser so they cannot drift from --help; the docs; and the
# Debian package CPack makes of it all (`cpack -G DEB`). Included once from the root
# CMakeLists.txt, after the targets.
include(GNUInstallDirs)

# Generated from the parser: `gpusweep help-man`, `gpusweep help-completion bash|zsh`.
set(gpusweep_generated ${PROJECT_BINARY_DIR}/share)
add_custom_command(
  OUTPUT ${gpusweep_generated}/gpusweep.1 ${gpusweep_generated}/gpusweep.bash
         ${gpusweep_generated}/_gpusweep
  COMMAND ${CMAKE_COMMAND} -E make_directory ${gpusweep_generated}
  COMMAND gpusweep help-man -o ${gpusweep_generated}/gpusweep.1
  COMMAND gpusweep help-completion bash -o ${gpusweep_generated}/gpusweep.bash
  COMMAND gpusweep help-completion zsh -o ${gpusweep_generated}/_gpusweep
  DEPENDS gpusweep
  COMMENT "Writing gpusweep.1 and the shell completions from gpusweep's --help"
  VERBATIM)
add_custom_target(gpusweep_cli_docs ALL DEPENDS ${gpusweep_generated}/gpusweep.1
  ${gpusweep_generated}/gpusweep.bash ${gpusweep_generated}/_gpusweep)

install(FILES ${gpusweep_generated}/gpusweep.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${gpusweep_generated}/gpusweep.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpusweep)
# zsh looks in share/zsh/site-functions under /usr/local, but Debian's zsh reads
# /usr/share/zsh/vendor-completions: chosen when installing (cpack installs to /usr),
# through a variable the generated install script expands.
install(CODE [[
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(gpusweep_zsh_dir vendor-completions)
  else()
    set(gpusweep_zsh_dir site-functions)
  endif()
]])
install(FILES ${gpusweep_generated}/_gpusweep
  DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/\${gpusweep_zsh_dir}")

install(FILES README.md ARCHITECTURE.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY examples/fashion-mnist examples/akid-grid
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples PATTERN "__pycache__" EXCLUDE)

# `make install` and cpack would otherwise build every target first (the tests and
# benchmarks, most of the build); install needs only what it installs, which a build of
# gpusweep (and the SDK) makes: scripts/install.sh builds those, then installs.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# Everything the rules above install, for scripts/install.sh to build before installing.
add_custom_target(gpusweep_installables DEPENDS gpusweep gpusweep_cli_docs)
if(TARGET gpusweep_fit)
  add_dependencies(gpusweep_installables gpusweep_fit)
endif()

# The Debian package: gpusweep_<version>_amd64.deb, installed under /usr.
set(CPACK_PACKAGE_NAME gpusweep)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpusweep maintainers <gpusweep@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "hyperparameter sweeps over a machine's GPUs")
set(CPACK_PACKAGE_DESCRIPTION
  "gpusweep runs one trial per parameter setting of a YAML experiment, each in its own \
process on its own GPUs, records every result in a crash-safe SQLite journal and resumes \
where it stopped. One native binary, a web dashboard, and trial helpers for Python and C++.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gpusweep_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The build's line tables make the binary ~120 MB; a package needs none of it.
set(CPACK_STRIP_FILES ON)
# Trials that import gpusweep.py need python3, most trials do; the binary does not.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client")
# The runtime libraries, as dpkg-shlibdeps reads them off the binary (libyaml-cpp0.7,
# libsqlite3-0, libfmt9, libopencv-ml406, libcpp-httplib0.11, ...). Without
# dpkg-shlibdeps: the list it gives on Debian 12, written out.
find_program(GPUSWEEP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GPUSWEEP_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, libstdc++6, libgcc-s1, libyaml-cpp0.7, libsqlite3-0, libfmt9, libopencv-ml406, libopencv-core406, libcpp-httplib0.11, libnlopt0")
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_IGNORE_FILES "/build.*/;/\\\\.git/;/web/node_modules/")
include(CPack)
