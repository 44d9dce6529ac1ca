# The Debian package: `cmake --build --preset default --target package` (or
# `cpack` in build/) writes build/cilia_<version>_<arch>.deb. What goes where is
# in docs/install.md; tests/e2e/package.test.mjs builds it and checks it.

include(GNUInstallDirs)

install(TARGETS cilia RUNTIME DESTINATION bin COMPONENT cilia)
# A unit under /lib (not /usr/lib): where Debian 12's systemd and
# deb-systemd-helper look for package units.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/cilia.service DESTINATION /lib/systemd/system COMPONENT cilia)
# A conffile (packaging/debian/conffiles): an admin's edits survive upgrades.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/cilia.toml DESTINATION /etc/cilia COMPONENT cilia)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/cilia COMPONENT cilia)
file(GLOB cilia_docs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${cilia_docs} DESTINATION share/doc/cilia COMPONENT cilia)

# Only cilia's own files: llama.cpp's subproject (CILIA_LOCAL_EMBEDDING) has install rules for
# its static libraries and headers, which the package must not carry.
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};cilia;cilia;/")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cilia)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "cilia maintainers <cilia@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "long-term memory gateway for LLM chat")
set(CPACK_PACKAGE_DESCRIPTION "cilia sits between a chat client and the model provider, keeps every
message verbatim in SQLite, indexes it (BM25 over segmented Chinese and
English, vectors, exact substrings) and serves it back as memory through
the chat gateway, a REST API, MCP tools and an admin web page. It runs as
the systemd service cilia.service, with its data in /var/lib/cilia.")
# The release build carries debug info (over 150 MB); the package does not.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends computed by dpkg-shlibdeps (dpkg-dev) from what the binary links;
# adduser for the postinst.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# https upstreams need the CA bundle.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
    ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
    ${CMAKE_SOURCE_DIR}/packaging/debian/postrm
    ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
