// Build-time stand-in for when-exit inside the bundle (atomically, under conf, uses it to remove
// its temporary files at exit). The real one also listens for SIGINT, SIGTERM, SIGHUP, … and
// sends the process the same signal again, which src/cli.ts takes for a second Ctrl-C (exit 130
// at once). svc handles those signals itself and always ends through process.exit, so the
// 'exit' event is where the clean-up belongs.
export default function whenExit(callback) {
  process.once('exit', callback);
  return () => process.off('exit', callback);
}
