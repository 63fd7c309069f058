# Shared by ./rddp and ./run-tests: finds JDK 25 and installs missing Debian packages.
# Source it; it sets JAVA_HOME and PATH, or stops with a message that says what is missing.

rddp_die() {
  echo "rddp: $*" >&2
  exit 1
}

# Prints the feature release of the JDK at $1 (e.g. 25), or nothing if it is not a JDK.
rddp_jdk_release() {
  local home=$1
  [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 0
  "$home/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

# JDK 25 or newer: JAVA_HOME first, then /usr/lib/jvm.
rddp_find_jdk() {
  local candidate release
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] || continue
    release=$(rddp_jdk_release "$candidate")
    if [ -n "$release" ] && [ "$release" -ge 25 ]; then
      export JAVA_HOME=$candidate
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done
  rddp_die "no JDK 25 found (looked at JAVA_HOME='${JAVA_HOME:-}' and /usr/lib/jvm/*).
Install a JDK 25 (for example Temurin 25 under /usr/lib/jvm) or point JAVA_HOME at one."
}

# Installs the Debian packages named as arguments that are not installed yet.
rddp_ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || rddp_die "missing Debian packages: ${missing[*]} (and no apt-get to install them)"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "rddp: installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null \
    || rddp_die "could not install ${missing[*]} with apt-get"
}

# Native libraries the stack loads at run time through java.lang.foreign: usrsctp, and lksctp-tools' libsctp for the
# kernel's SCTP where the kernel has it; and what the JDK's headless AWT needs to draw rddp compare's charts
# (FreeType, fontconfig and a font).
RDDP_PACKAGES=(libusrsctp2 libsctp1 libfreetype6 fontconfig fonts-dejavu-core)
# What the tests need besides: tshark, to check the Wireshark dissector against captures of our own traffic.
RDDP_TEST_PACKAGES=(tshark iproute2 iptables ethtool)
