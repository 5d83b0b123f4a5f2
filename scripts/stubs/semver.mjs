// Build-time stand-in for semver inside the bundle: conf uses it only for `migrations`,
// which svc does not use.
export default {
  satisfies() {
    throw new Error('svc bundles conf without semver: config migrations are not supported');
  },
};
