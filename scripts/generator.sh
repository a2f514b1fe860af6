# Sourced by setup.sh, test.sh and sanitize.sh: `netdp_generator DIR` prints "-G Ninja" for a build directory
# not configured yet when ninja is installed (it compiles the objects of every layer at once, where make waits for
# each layer's library before the next: docs/reliability.md §5 "Compile time"), and nothing otherwise, so that a
# directory keeps the generator it was made with.
netdp_generator() {
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja > /dev/null; then echo "-G Ninja"; fi
}
