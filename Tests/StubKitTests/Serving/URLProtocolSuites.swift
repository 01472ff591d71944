import Testing

/// Every suite that sends requests through `StubURLProtocol` sits in here. The protocol serves one
/// process-wide engine, so these suites must not run beside each other; everything else runs in parallel.
/// A test that hangs is reported by name after its time limit (the stress test takes 12 s under TSan).
@Suite(.serialized, .timeLimit(.minutes(2)))
enum URLProtocolSuites {}
