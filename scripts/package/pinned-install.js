#!/usr/bin/env node
"use strict";
/**
 * Prepares a directory to install a packed stackwarden with the dependency tree this project's tests
 * ran with:
 *
 *   node scripts/package/pinned-install.js TARBALL DIR && npm install --prefix DIR --no-audit --no-fund
 *
 * It writes DIR/package.json (depending on the tarball, `file:` relative to DIR) and DIR/package-lock.json:
 * the tarball with its sha-512, and every runtime dependency of it (and theirs) at the version, place
 * and integrity this project's package-lock.json pins. npm then installs from the lock as it installs
 * any project's: no version range is resolved again, so nothing newer slips in, and with a warm cache
 * (`npm ci` of this project filled it) nothing is fetched (`--offline` works).
 *
 * Used by the tests that install the tarball (test/helpers/installed-package.ts). A published package
 * gets no such lock: `npm install stackwarden` resolves its dependencies' ranges as npm does for any
 * package.
 *
 * DIR must not hold a package.json or package-lock.json yet (it is not a project's own directory).
 */
const { createHash } = require("node:crypto");
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { basename, join, relative, resolve } = require("node:path");

/** The project whose lock pins the dependencies: the one this script belongs to. */
const PROJECT = resolve(__dirname, "..", "..");

/**
 * The lock of a directory that depends on `tarball` only: the tarball's entry and every entry of
 * `lock` that is not a devDependency's (flag `dev`). An entry that is both a devDependency and an
 * optional one (`devOptional`) is kept as optional: npm installs it when something needs it and drops
 * it otherwise (an optional peer such as typescript), as it does for any lock entry nothing requires.
 */
function pinnedLock(pkg, lock, tarballSpec, integrity) {
  const packages = {
    "": { name: "stackwarden-install", dependencies: { [pkg.name]: tarballSpec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: tarballSpec,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === "" || entry.dev) continue;
    const { devOptional, ...kept } = entry;
    packages[path] = devOptional ? { ...kept, optional: true } : kept;
  }
  return { name: "stackwarden-install", lockfileVersion: 3, requires: true, packages };
}

/** Writes DIR's package.json and package-lock.json for `tarball` (see the file's comment). */
function preparePinnedInstall(tarball, dir, project = PROJECT) {
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8"));
  const file = resolve(tarball);
  if (basename(file) !== `${pkg.name}-${pkg.version}.tgz`)
    throw new Error(`${tarball} is not the tarball of ${pkg.name} ${pkg.version} (npm pack names it ${pkg.name}-${pkg.version}.tgz)`);
  for (const f of ["package.json", "package-lock.json"])
    if (existsSync(join(dir, f))) throw new Error(`${join(dir, f)} exists: install into a directory of its own`);
  mkdirSync(dir, { recursive: true });
  const spec = `file:${relative(resolve(dir), file).split("\\").join("/")}`;
  const integrity = `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "stackwarden-install", private: true, dependencies: { [pkg.name]: spec } }, null, 2)}\n`,
  );
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(pinnedLock(pkg, lock, spec, integrity), null, 2)}\n`);
}

module.exports = { preparePinnedInstall, pinnedLock };

if (require.main === module) {
  const [tarball, dir] = process.argv.slice(2);
  if (!tarball || !dir) {
    process.stderr.write("usage: node scripts/package/pinned-install.js TARBALL DIR\n");
    process.exit(2);
  }
  try {
    preparePinnedInstall(tarball, dir);
  } catch (e) {
    process.stderr.write(`pinned-install: ${e.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${join(resolve(dir), "package.json")} and package-lock.json pin ${basename(tarball)}'s dependencies\n`);
}
