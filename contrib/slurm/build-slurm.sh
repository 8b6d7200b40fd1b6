#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-slurm.sh VERSION - build a Slurm release from Debian's own source
# package into /opt/slurm/VERSION, for testing stencilmap against it.
#
# Debian 12 ships Slurm 22.05; sites run 24.11 to 26.05.  Debian builds
# those (source package slurm-wlm) for newer suites whose binaries need a
# newer libc, so we take the source package and build it here.  The suite
# is reached through a private apt configuration (its own sources list,
# lists and cache under $SLURM_BUILD_CACHE): the system's apt setup is
# never changed, and the archive's address is read from the machine's own
# apt sources.  Nothing is installed over the system's Slurm.
#
# Some releases the archive lists but does not serve (26.05: sid names
# 26.05.5, every file of it answers 404).  For those the project keeps an
# upstream tarball beside the checkout, in ../shared/slurm/ (a test
# dependency, never part of the tree), and this script builds that one
# after checking its SHA-256 against the table below; no apt is involved.
#
# A finished build is reused: a second run for the same VERSION only
# checks it and prints its prefix.
#
# With --source-only, only fetches and unpacks the source into
# $SLURM_BUILD_CACHE/src-VERSION/tree (Slurm's own testsuite lives there:
# tests/slurm-suite runs it) and builds nothing; for 22.05, Debian 12's
# own release, the source comes from bookworm.
#
# With --deps-only, only installs the build dependencies (apt) and fetches
# nothing: tests/run-all.sh runs that first, then the builds in the
# background, where an apt-get install would contend with the tests' own
# dpkg -i for dpkg's lock.
#
# usage: build-slurm.sh [--source-only|--deps-only] VERSION   e.g. 24.11.5, 26.05.3
# env:   SLURM_PREFIX_ROOT (default /opt/slurm), SLURM_BUILD_CACHE
#        (default /var/cache/stencilmap-slurm), SLURM_SUITE (the Debian
#        suite holding VERSION; default from the release: 22.05 -> bookworm
#        (source only), 24.11 -> trixie, anything newer -> sid),
#        SLURM_TARBALL_DIR (where the upstream tarballs of the table below
#        are; default ../shared/slurm next to this checkout)
set -euo pipefail

prog=${0##*/}
die() { echo "$prog: $*" >&2; exit 1; }

source_only=0
deps_only=0
case ${1:-} in
    --source-only) source_only=1; shift ;;
    --deps-only) deps_only=1; shift ;;
esac
[ $# -eq 1 ] || die "usage: $prog [--source-only|--deps-only] VERSION (e.g. 24.11.5)"
version=$1
[[ $version =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] ||
    die "VERSION must look like 24.11.5 (got '$version')"
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
root=${SLURM_PREFIX_ROOT:-/opt/slurm}
prefix=$root/$version
cache=${SLURM_BUILD_CACHE:-/var/cache/stencilmap-slurm}
stamp=$prefix/.stencilmap-build

# What Slurm's configure gets besides the prefix: munge for auth and
# credentials, mpi/pmix for MPI, hwloc; several slurmd on one host (the
# minicluster runs one per node, as `slurmd -N NAME`).  A build made with
# other flags is redone.
flags="--with-munge --with-hwloc --enable-multiple-slurmd --disable-debug --without-rpath --disable-static"

if [ "$source_only" = 1 ] && [ -f "$cache/src-$version/tree/.unpacked" ]; then
    echo "$prog: source of Slurm $version in $cache/src-$version/tree ($(cat "$cache/src-$version/tree/.unpacked"))"
    exit 0
fi
if [ "$source_only" = 0 ] && [ "$deps_only" = 0 ] && [ -f "$stamp" ] && [ -x "$prefix/bin/srun" ] && [ -f "$prefix/include/slurm/spank.h" ] &&
    grep -qxF "flags: $flags" "$stamp"; then
    echo "$prog: Slurm $version already built in $prefix ($(head -n1 "$stamp"))"
    exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get, $root)"

# Upstream tarballs taken instead of Debian's source package, with the
# SHA-256 each must have (the one SchedMD's tag gives through git archive).
declare -A tarball_sha256=(
    [26.05.3]=d41a71248d57816f873a990bcc085a79d746b69a9bbe6f2a0b64dc75536a5b51
)
tarball=""
if [ -n "${tarball_sha256[$version]:-}" ]; then
    top=$(cd "$(dirname "$0")/../.." && pwd)
    tar_dir=${SLURM_TARBALL_DIR:-$top/../shared/slurm}
    tarball=$tar_dir/slurm-$version.tar.gz
    [ -f "$tarball" ] ||
        die "Slurm $version is built from its upstream tarball, and $tarball is missing (set SLURM_TARBALL_DIR to the directory that holds slurm-$version.tar.gz)"
    sum=$(sha256sum "$tarball" | cut -d' ' -f1)
    [ "$sum" = "${tarball_sha256[$version]}" ] ||
        die "$tarball has SHA-256 $sum, not the expected ${tarball_sha256[$version]}: refusing to build it"
    echo "$prog: $tarball: SHA-256 checked"
fi

# The suite that carries this release.  Debian keeps one Slurm per suite;
# the version found there is checked below.
if [ -n "$tarball" ]; then
    suite=""
elif [ -n "${SLURM_SUITE:-}" ]; then
    suite=$SLURM_SUITE
elif [ "$source_only" = 1 ] && [ "$major" -eq 22 ] && [ "$minor" -eq 5 ]; then
    suite=bookworm
elif [ "$major" -lt 24 ] || { [ "$major" -eq 24 ] && [ "$minor" -lt 11 ]; }; then
    die "Slurm $version: Debian 12's own Slurm is 22.05 (install slurm-wlm); for other releases set SLURM_SUITE"
elif [ "$major" -eq 24 ]; then
    suite=trixie
else
    suite=sid
fi

# The archive's address, from the machine's own apt sources: the first
# Debian (not security) URI, in deb822 or one-line form.
archive_uri() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' "$f"
    done
}
uri=""
if [ -z "$tarball" ]; then
    uri=$(archive_uri | grep -v -- '-security' | grep -E '/debian/?$' | head -n1) ||
        true
    [ -n "$uri" ] || die "no Debian archive found in /etc/apt/sources.list{,.d}"
fi

export DEBIAN_FRONTEND=noninteractive
# What Slurm's configure needs for the plugins our tests use (auth/munge,
# mpi/pmix, hwloc) and to build Debian's source.
build_deps=(build-essential dpkg-dev pkg-config python3 libmunge-dev munge
    libpmix-dev libhwloc-dev libjson-c-dev libyaml-dev libdbus-1-dev libcurl4-openssl-dev
    liblz4-dev zlib1g-dev libssl-dev libpam0g-dev libreadline-dev)
[ "$source_only" = 1 ] && build_deps=(dpkg-dev)
missing=()
for p in "${build_deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "$prog: installing build dependencies: ${missing[*]}"
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ "$deps_only" = 1 ]; then
    echo "$prog: the build dependencies of Slurm $version are installed"
    exit 0
fi

src_dir=$cache/src-$version
mkdir -p "$src_dir"
dsc="" orig=""
if [ -z "$tarball" ]; then
    # Private apt configuration for the deb-src suite.
    apt_dir=$cache/apt-$suite
    mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/etc/preferences.d" \
        "$apt_dir/lists/partial" "$apt_dir/archives/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
        >"$apt_dir/etc/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
        -o "Dir::Etc::SourceParts=$apt_dir/etc/sources.list.d"
        -o "Dir::Etc::Preferences=$apt_dir/etc/preferences"
        -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
        -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir" -o "Dir::Cache::srcpkgcache=" -o "Dir::Cache::pkgcache=")

    find_src() { find "$src_dir" -maxdepth 1 -name "slurm-wlm_$1" | head -n1; }
    dsc=$(find_src "${version}-*.dsc")
    orig=$(find_src "${version}.orig.tar.*")
    if [ -z "$dsc" ] && [ -z "$orig" ]; then
        echo "$prog: looking up slurm-wlm $version in Debian's $suite"
        apt-get "${apt_opts[@]}" -q update >"$cache/apt-update-$suite.log" 2>&1 ||
            { tail -20 "$cache/apt-update-$suite.log" >&2; die "apt-get update of $suite failed"; }
        debver=$(apt-cache "${apt_opts[@]}" showsrc slurm-wlm 2>/dev/null |
            sed -n 's/^Version: //p' | grep -E "^([0-9]+:)?${version//./\\.}-" | sort -V | tail -n1)
        [ -n "$debver" ] || die "Debian's $suite has no slurm-wlm $version (it has: $(apt-cache "${apt_opts[@]}" showsrc slurm-wlm 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' '))"
        # apt checks every file it fetches against the signed index; an
        # archive (or mirror) may lack some of them, which is judged below
        (cd "$src_dir" && apt-get "${apt_opts[@]}" -q source --download-only "slurm-wlm=$debver") ||
            echo "$prog: note: not every file of slurm-wlm $debver could be fetched"
        dsc=$(find_src "${version}-*.dsc")
        orig=$(find_src "${version}.orig.tar.*")
    fi
fi

tree=$src_dir/tree
if [ -n "$tarball" ]; then
    want_desc="upstream $(basename "$tarball") (SHA-256 $sum)"
    [ "$(cat "$tree/.unpacked" 2>/dev/null)" = "$want_desc" ] || rm -f "$tree/.unpacked"
fi
if [ ! -f "$tree/.unpacked" ]; then
    rm -rf "$tree"
    if [ -n "$tarball" ]; then
        # git archive's tree with configure generated: built as it is
        # (AM_MAINTAINER_MODE keeps make from rerunning the autotools)
        mkdir -p "$tree"
        tar -xzf "$tarball" -C "$tree" --strip-components=1 ||
            die "unpacking $tarball failed"
        source_desc=$want_desc
    elif [ -n "$dsc" ]; then
        # The .dsc's signature is a maintainer's, whose keyring we do not
        # carry; its files came through the signed archive index.
        dpkg-source --no-check -x "$dsc" "$tree" >"$src_dir/unpack.log" 2>&1 ||
            { tail -20 "$src_dir/unpack.log" >&2; die "unpacking $dsc failed"; }
        source_desc="debian $(basename "$dsc" .dsc | sed 's/^slurm-wlm_//') from $suite"
    elif [ -n "$orig" ]; then
        # Only the upstream tarball is reachable: build it without
        # Debian's patches (packaging fixes, none to the SPANK interface).
        mkdir -p "$tree"
        tar -xf "$orig" -C "$tree" --strip-components=1 ||
            die "unpacking $orig failed"
        source_desc="upstream $(basename "$orig") from $suite (no .dsc in this archive)"
    else
        die "the archive serves no source of slurm-wlm $version (neither .dsc nor .orig.tar); nothing to build"
    fi
    echo "$source_desc" >"$tree/.unpacked"
fi
source_desc=$(cat "$tree/.unpacked")
if [ "$source_only" = 1 ]; then
    echo "$prog: source of Slurm $version in $tree ($source_desc)"
    exit 0
fi

pmix_dir=$(pkg-config --variable=prefix pmix 2>/dev/null || true)
[ -n "$pmix_dir" ] && [ -f "$pmix_dir/include/pmix.h" ] || pmix_dir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pmix2
[ -f "$pmix_dir/include/pmix.h" ] || die "PMIx headers not found (libpmix-dev)"

obj=$src_dir/obj
rm -rf "$obj" "$prefix"
mkdir -p "$obj"
start=$(date +%s)
echo "$prog: configuring Slurm $version ($source_desc) for $prefix"
# shellcheck disable=SC2086 # $flags is a list of words
(cd "$obj" && "$tree/configure" --prefix="$prefix" --sysconfdir="$prefix/etc" \
    --with-pmix="$pmix_dir" $flags >"$src_dir/configure.log" 2>&1) ||
    { tail -30 "$src_dir/configure.log" >&2; die "configure failed (log $src_dir/configure.log)"; }
configured=$(date +%s)
echo "$prog: building (make -j$(nproc)); log $src_dir/make.log"
make -C "$obj" -j"$(nproc)" >"$src_dir/make.log" 2>&1 ||
    { grep -E 'error' -A3 "$src_dir/make.log" | tail -30 >&2; die "make failed (log $src_dir/make.log)"; }
make -C "$obj" install >"$src_dir/install.log" 2>&1 ||
    { tail -30 "$src_dir/install.log" >&2; die "make install failed"; }
built=$(date +%s)
for f in bin/srun bin/salloc bin/sbatch bin/scontrol sbin/slurmctld sbin/slurmd \
    include/slurm/spank.h include/slurm/slurm_version.h lib/slurm/mpi_pmix.so lib/slurm/auth_munge.so; do
    [ -e "$prefix/$f" ] || die "build incomplete: $prefix/$f missing"
done
printf '%s\nflags: %s\n' "$source_desc; configure $((configured - start)) s, make+install $((built - configured)) s" \
    "$flags" >"$stamp"
echo "$prog: Slurm $version built in $prefix: $(head -n1 "$stamp")"
