# `cmake --install build --prefix P` and the Debian package (`cpack`, scripts/package):
#   P/bin/trainvp
#   P/share/trainvp/scenarios/        the shipped scenarios and sweep specs (the search path's last
#                                     directory: platform/cli/scenario_path.hpp)
#   P/share/trainvp/cluster/          the Slurm and GNU parallel scripts of docs/cluster.md
#   P/share/doc/trainvp/              README.md and docs/
#   P/share/man/man1/                 one page per command, made by the binary from its --help
#   P/share/bash-completion/completions/trainvp
include(GNUInstallDirs)
# cpack (and `make install`) install what is built and do not first bring the whole tree up to
# date: tests/install/test-deb.sh packages this build while ctest runs its tests. scripts/package
# builds before it packages.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
install(TARGETS trainvp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/trainvp/scenarios)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/cluster/sweep-slurm.sh ${CMAKE_SOURCE_DIR}/scripts/cluster/sweep-shard.sbatch
                 ${CMAKE_SOURCE_DIR}/scripts/cluster/sweep-merge.sbatch ${CMAKE_SOURCE_DIR}/scripts/cluster/sweep-parallel.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/trainvp/cluster)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${TRAINVP_GENERATED_DOCS}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${TRAINVP_GENERATED_DOCS}/completions/trainvp DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The Debian package, trainvp_<version>_<arch>.deb. Its Depends come from dpkg-shlibdeps (the
# shared libraries the binary links: libsystemc, libsqlite3-0, zlib1g, libstdc++6, libc6, ...),
# plus gnuplot, which `trainvp plot` and sweeps with plots run as a program.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trainvp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "trainvp maintainers <trainvp@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SystemC/TLM-2.0 virtual platform of GPU training clusters")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Simulates data-, tensor- and pipeline-parallel training on GPU nodes and clusters\n(compute, NVLink, PCIe, CXL, fabrics, faults), runs parameter sweeps and plots them.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gnuplot-nox | gnuplot")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
