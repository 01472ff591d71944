#if Tools
import Foundation
import StubKit
import StubKitTesting

/// How long a test runner's wait takes to wake after the app writes a live journal line: the app's
/// `write(2)` with `O_APPEND`, the kernel's file event (inotify on Linux, kqueue on Apple), the read of
/// the new line, its decoding, and the blocked waiter's return. A 100 ms poll would add 50 ms on average.
func runLiveJournalBenchmarks(_ configuration: BenchmarkConfiguration, recorder: BenchmarkRecorder) throws {
    let url = configuration.work.appendingPathComponent("live.jsonl")
    let journal = try LiveJournal(url: url)
    let descriptor = open(url.path, O_WRONLY | O_APPEND)
    precondition(descriptor >= 0, "stubbench: cannot open \(url.path)")
    defer { close(descriptor) }
    let request = StubRequest(method: "POST", url: URL(string: "https://api.takeaway.example/orders")!,
                              headers: ["Content-Type": "application/json"], body: Data(#"{"items":[11,12]}"#.utf8))
    var written = 0
    let stats = Stats.measure("live journal: line written → blocked wait returns", runs: configuration.quick ? 50 : 1_000) {
        written += 1
        let entry = JournalEntry(id: written, startedAt: Date(), duration: 0.001, request: request, bundle: "restaurants_base", rule: nil,
                                 status: 201, responseHeaders: ["Content-Type": "application/json"], responseBody: nil,
                                 responseBodySize: 59, error: nil, nearMisses: [])
        let line = LiveJournalLine.request(entry).encoded
        line.withUnsafeBytes { _ = write(descriptor, $0.baseAddress!, $0.count) }
        do {
            try journal.waitForRequestBlocking(matching: .any, count: written, timeout: 10)
        } catch {
            fatalError("stubbench: the live journal wait did not wake: \(error)")
        }
    }
    recorder.record(stats)
    journal.stop()
}
#endif
