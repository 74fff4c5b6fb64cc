// libyaml (Debian: libyaml-dev), for reading `libinput record` files.
#include <yaml.h>
