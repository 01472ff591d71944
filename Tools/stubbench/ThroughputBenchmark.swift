#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests per second with many in flight on one stubbed session.
struct ThroughputBenchmark {
    let configuration: BenchmarkConfiguration

    struct Result {
        var requestsPerSecond: Double
        var inFlight: Int
    }

    func run(_ session: URLSession) -> Result {
        let inFlight = configuration.quick ? 100 : 1_000
        let start = DispatchTime.now().uptimeNanoseconds
        let group = DispatchGroup()
        for i in 0..<inFlight {
            group.enter()
            session.dataTask(with: URL(string: "https://api.example.com/api/v1/resource\(i % 1_000)/\(i)")!) { data, _, _ in
                precondition(data != nil)
                group.leave()
            }.resume()
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let requestsPerSecond = Double(inFlight) / seconds
        print(String(format: "%-62@ %12.0f req/s (%d in flight, %.3f s)", "throughput, one session" as NSString, requestsPerSecond, inFlight, seconds))
        return Result(requestsPerSecond: requestsPerSecond, inFlight: inFlight)
    }
}
#endif
