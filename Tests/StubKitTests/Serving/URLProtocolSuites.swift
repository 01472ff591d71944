import Testing

/// The suites that register the process-wide engine (`URLSession.shared`), or load the machine enough
/// to upset each other's timing, sit in here and run one at a time; everything else runs in parallel
/// (a session stubbed by an engine is answered by that engine alone, see `EngineRoutingTests`).
/// A test that hangs is reported by name after its time limit (the stress test takes 12 s under TSan).
@Suite(.serialized, .timeLimit(.minutes(2)))
enum URLProtocolSuites {}
