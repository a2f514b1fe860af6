# Included by the top-level CMakeLists.txt: decides whether to build the Python package (docs/python.md).
# NETDP_PYTHON: AUTO (default) builds it when Python 3 with its headers, NumPy and pybind11 are found and skips it
# cleanly otherwise; ON requires them; OFF skips. Debian's /usr/bin/python3 is preferred over whatever python3
# comes first on PATH (e.g. pyenv), because the Debian packages python3-numpy etc. belong to it.
set(NETDP_PYTHON AUTO CACHE STRING "Build the Python package netdp (pybind11): AUTO, ON or OFF")
set_property(CACHE NETDP_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(NETDP_HAVE_PYTHON OFF)
#
# Under pip (scikit-build-core sets SKBUILD; pyproject.toml), the interpreter is the one pip runs for, NumPy is a
# run-time dependency only (pybind11's numpy.h uses no NumPy header), and the package goes to the wheel's root.
if(NOT NETDP_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python3_EXECUTABLE AND NOT SKBUILD AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter of the netdp package")
  endif()
  set(required "")
  if(NETDP_PYTHON STREQUAL "ON")
    set(required REQUIRED)
  endif()
  set(numpy NumPy)
  if(SKBUILD)
    set(numpy "")
    set(NETDP_PYTHON_INSTALL_DIR .)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module ${numpy} ${required})
  if(Python3_FOUND)
    find_package(pybind11 CONFIG ${required})
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(NETDP_HAVE_PYTHON ON)
    if(NOT DEFINED NETDP_PYTHON_INSTALL_DIR)
      # The interpreter's own site directory for local installs (/usr/local/lib/python3.X/dist-packages on
      # Debian), absolute: `cmake --install --component python` puts the package where python3 finds it.
      execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sysconfig; print(sysconfig.get_path('platlib'))"
                      OUTPUT_VARIABLE site OUTPUT_STRIP_TRAILING_WHITESPACE)
      set(NETDP_PYTHON_INSTALL_DIR ${site} CACHE PATH "where the python component installs the netdp package")
    endif()
    add_subdirectory(python)
  else()
    message(STATUS "netdp Python package: skipped (needs python3-dev, python3-numpy and pybind11-dev)")
  endif()
endif()
