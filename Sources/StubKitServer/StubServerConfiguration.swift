#if Tools
import Foundation

/// How a ``StubServer`` listens and what it does with requests no rule answers.
package struct StubServerConfiguration: Sendable {
    /// What happens to a request no active rule answers.
    package enum MissPolicy: String, Sendable, CaseIterable {
        /// Answer `502 Bad Gateway` with the near-miss report as the body (the kill switch).
        case refuse
        /// Send it to the real host over HTTPS and relay the answer (recorded when the engine records).
        case forward
    }

    /// The address to bind; loopback by default, so nothing outside the machine reaches the stubs.
    package var host = "127.0.0.1"
    /// The port; 0 lets the system choose a free one (read it from ``StubServer/port``).
    package var port = 0
    package var onMiss = MissPolicy.refuse
    /// Answer CORS preflights and add `Access-Control-Allow-Origin` to every answer, for web pages
    /// served from another origin.
    package var cors = false
    /// Hosts that count as hosts in a request's first path component besides the hosts of the active
    /// rules (`/api.example.com/v1/menu`), e.g. hosts only forwarded to.
    package var extraHosts: [String] = []
    /// The scheme a host named in the first path component stands for.
    package var upstreamScheme = "https"
    /// A PEM file of certificate authorities that `wss://` relays trust besides the system's (a private
    /// CA, a test's own); read when the server starts. Certificates are always verified.
    package var upstreamCertificateAuthorities: String?
    /// Larger request bodies are refused with `413` (checked against `Content-Length` first).
    package var maximumRequestBodySize = 10 << 20
    /// A connection that has not sent a complete request head this long after it opened or after its
    /// last response is closed (a slow or silent client cannot hold a connection for ever).
    package var requestHeadTimeout: TimeInterval = 30
    /// How long a simulated `timedOut` holds the connection with no answer before closing it, if
    /// the client has not given up first.
    package var timedOutHold: TimeInterval = 60
    /// How long ``StubServer/shutdown()`` lets responses in flight finish before closing them.
    package var shutdownGrace: TimeInterval = 10
    /// The longest wait the admin API accepts (`timeout` and `within`).
    package var maximumAdminWait: TimeInterval = 300
    /// Checks each exchange against the API's contract (`stubkit serve --openapi`); `nil`: none.
    package var contractCheck: ServerContractCheck?
    /// Event-loop threads.
    package var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    package init() {}
}
#endif
