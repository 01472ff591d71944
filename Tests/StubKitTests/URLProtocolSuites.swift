import Testing

/// Every suite that sends requests through `StubURLProtocol` sits in here. The protocol serves one
/// process-wide engine, so these suites must not run beside each other; everything else runs in parallel.
@Suite(.serialized)
enum URLProtocolSuites {}
