#if Tools
import Foundation

/// The measures of one run in the order taken, printed as they come, and the notes for the report.
final class BenchmarkRecorder {
    private(set) var results: [Stats] = []
    private(set) var notes: [String] = []

    func record(_ s: Stats) {
        results.append(s)
        print(String(format: "%-62@ %12.2f µs %12.2f µs", s.name as NSString, s.medianMicros, s.p99Micros))
    }

    func note(_ text: String) {
        notes.append(text)
    }
}
#endif
