# Sourced by test_install.sh and test_compat.sh, which set $build, $meson, $tmp and fail():
# `meson install` into the temporary DESTDIR $tmp/root, then the installed gat.pc relocated to
# that root (igraph's own .pc stays the system's) on PKG_CONFIG_PATH. Sets prefix (the install
# prefix inside the root), flags (pkg-config --cflags --libs gat) and libdir.

# --no-rebuild: meson test has built everything; installing must not re-enter ninja
"$meson" install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "meson install"; }
pc=$(find "$tmp/root" -name gat.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no gat.pc installed"
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir -p "$tmp/pc"
sed "s|^prefix=.*|prefix=$tmp/root$prefix|" "$pc" >"$tmp/pc/gat.pc"
export PKG_CONFIG_PATH="$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
flags=$(pkg-config --cflags --libs gat) || fail "pkg-config --cflags --libs gat"
libdir=$(pkg-config --variable=libdir gat)
