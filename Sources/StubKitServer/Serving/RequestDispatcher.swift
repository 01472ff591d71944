#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StubKit

/// Decides what each request to the server gets: the admin API, a CORS preflight answer, a rule's
/// answer, the near-miss `502`, or the real host's answer. Runs on the connection's event loop.
final class RequestDispatcher: Sendable {
    let engine: StubEngine
    let configuration: StubServerConfiguration
    let group: any EventLoopGroup
    let admin: AdminAPI
    /// Counts over the event streams being sent.
    let eventStreams = EventStreamGauge()
    private let routing: NIOLockedValueBox<Routing>

    /// What routing needs, rebuilt when the active templates change.
    struct Routing: Sendable {
        var router: HostRouter
        /// Static answers of the active templates, replaced with the router.
        var answers = AnswerCache()
        /// `127.0.0.1:PORT` once bound.
        var authority = ""
    }

    init(engine: StubEngine, configuration: StubServerConfiguration, group: any EventLoopGroup, admin: AdminAPI) {
        self.engine = engine
        self.configuration = configuration
        self.group = group
        self.admin = admin
        self.routing = NIOLockedValueBox(Routing(router: HostRouter(bundles: engine.activeBundles, configuration: configuration)))
    }

    func bound(to authority: String) {
        routing.withLockedValue { $0.authority = authority }
    }

    /// Called after the active templates changed.
    func refreshRouting() {
        let router = HostRouter(bundles: engine.activeBundles, configuration: configuration)
        routing.withLockedValue {
            $0.router = router
            $0.answers = AnswerCache()
        }
    }

    var authority: String { routing.withLockedValue { $0.authority } }

    // MARK: Dispatching

    /// - Parameter decided: the engine's decision, when it was already asked for this request (a
    ///   WebSocket upgrade the server did not accept): asking again would count a stateful rule's hit twice.
    /// - Parameter relayFailure: why the real server refused the WebSocket upgrade it was to be relayed to.
    /// - Parameter refusal: why the server refused the WebSocket upgrade itself (origin, subprotocols).
    func dispatch(_ request: ReceivedRequest, on connection: ConnectionHandler, decided: StubEngine.Decision? = nil, relayFailure: String? = nil,
                  refusal: (status: Int, reason: String)? = nil) {
        var request = request
        request.head.uri = HostRouter.originForm(of: request.head.uri, serverAuthority: authority)
        if configuration.cors, request.head.method == .OPTIONS, request.head.headers.contains(name: "access-control-request-method") {
            connection.send(status: 204, headers: preflightHeaders(for: request), body: nil)
            return
        }
        if Self.isAdmin(request.head.uri) {
            admin.handle(request, on: connection, dispatcher: self)
            return
        }
        let exchange: Exchange
        switch route(request) {
        case .failure(let refusal):
            refuse(status: 400, reason: refusal.reason, on: connection, request: request)
            return
        case .success(let result):
            exchange = result
        }
        if let refusal {
            let text = "StubKit server: \(refusal.reason)"
            journal(exchange, status: refusal.status, error: URLError(.badServerResponse), description: text)
            sendText(refusal.status, text + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "upgrade-refused")])
            return
        }
        if let check = configuration.contractCheck, check.checksRequests {
            // A decision already taken (a declined upgrade) has counted its hit: the request is checked, never refused.
            checkContract(exchange, with: check, refusable: decided == nil, on: connection) { exchange, connection in
                self.decide(exchange, on: connection, decided: decided, relayFailure: relayFailure)
            }
            return
        }
        decide(exchange, on: connection, decided: decided, relayFailure: relayFailure)
    }

    /// Asks the engine (unless `decided`) and answers as it says.
    func decide(_ exchange: Exchange, on connection: ConnectionHandler, decided: StubEngine.Decision?, relayFailure: String?) {
        let stubRequest = exchange.stubRequest
        let request = exchange.request
        switch decided ?? engine.decision(for: stubRequest) {
        case .answer(let match) where match.rule.webSocket != nil:
            // Only a handshake the server could not accept reaches here: a broken one, or one on a connection
            // that already carried a request (an upgrade is taken only as a connection's first request).
            let fields = request.head.headers
            let wellFormed = fields.contains(name: "sec-websocket-key") && fields.first(name: "sec-websocket-version") == "13"
            let why = wellFormed
                ? "this upgrade came on a connection that already carried a request; a WebSocket upgrade must be its connection's first request, so open a new connection for it"
                : "this request is not a valid one (it needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13)"
            let text = "StubKit: rule \(match.rule.displayName) in \(match.bundle) (\(match.rule.source.locationDescription)) answers WebSocket upgrades, and \(why)"
            journal(exchange, match: match, status: 400, error: URLError(.badServerResponse), description: text)
            sendText(400, text + "\n", exchange, on: connection, extra: [("Sec-WebSocket-Version", "13")])
        case .answer(let match):
            if let recorder = engine.recorder, recorder.records(stubRequest) { recorder.noteReplayed() }
            answer(match, exchange, on: connection)
        case .refuse(let report):
            journal(exchange, status: 502, error: URLError(.notConnectedToInternet), description: report.description, nearMisses: report.nearMisses)
            sendText(502, report.description + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "no-rule")])
        case .sequenceExhausted(let rule, let bundle, let used):
            let text = "StubKit: rule \(rule.displayName) in \(bundle) (\(rule.source.locationDescription)) has used all \(used) of its responses and its 'afterLast' is 'fail'; \(stubRequest.method) \(stubRequest.url.absoluteString) was not answered"
            journal(exchange, status: 502, error: URLError(.resourceUnavailable), description: text)
            sendText(502, text + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "sequence-used-up")])
        case .passThrough:
            if let relayFailure { return refuseRelay(exchange, reason: relayFailure, on: connection) }
            forward(exchange, on: connection)
        }
    }

    /// Whether the target (in origin form) is the admin API's.
    static func isAdmin(_ target: String) -> Bool {
        target == AdminAPI.prefix.dropLast() || target.hasPrefix(AdminAPI.prefix)
    }

    /// Routes a request (its target in origin form) to the stubbed URL it names, as the rules see it.
    func route(_ request: ReceivedRequest) -> Result<Exchange, HostRouter.Refusal> {
        let target = request.head.uri
        let (router, authority, answers) = routing.withLockedValue { ($0.router, $0.authority, $0.answers) }
        let hostHeader = request.head.headers.first(name: "host")
        return router.route(target: target, hostHeader: hostHeader, serverAuthority: authority).map { routed in
            let stubRequest = StubRequest(method: request.method, url: routed.url, headers: Self.headers(of: request.head),
                                          body: request.body.readableBytes > 0 ? Data(request.body.readableBytesView) : nil)
            // Answers point the client back here: at the address it used, unless that is a stubbed host itself.
            let clientAuthority = hostHeader.flatMap { $0 == authority || router.hosts.contains(HostRouter.hostOnly($0)) ? nil : $0 } ?? authority
            return Exchange(request: request, stubRequest: stubRequest, routed: routed,
                            rewriter: URLRewriter(hosts: router.hosts, base: "http://\(clientAuthority)"), answers: answers)
        }
    }

    /// Refuses a request before it is routed (bad path, body too large): a 4xx naming the reason.
    func refuse(status: Int, reason: String, on connection: ConnectionHandler, request: ReceivedRequest? = nil) {
        var headers = [("Content-Type", "text/plain; charset=utf-8")]
        if let request, configuration.cors { headers += corsHeaders(for: request) }
        let text = "StubKit server: \(reason)\n"
        headers.append(("Content-Length", String(text.utf8.count)))
        connection.send(status: status, headers: headers, body: ByteBuffer(string: text))
    }

    // MARK: Helpers

    /// One request on its way through the server.
    struct Exchange {
        var request: ReceivedRequest
        var stubRequest: StubRequest
        var routed: HostRouter.Routed
        var rewriter: URLRewriter
        var answers: AnswerCache
        /// How the request departs from the API's contract, journalled with whatever answers it.
        var contract: [JournalContractFinding] = []
    }

    func sendText(_ status: Int, _ text: String, _ exchange: Exchange, on connection: ConnectionHandler, extra: [(String, String)] = []) {
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(text.utf8.count))] + extra
        if configuration.cors { headers += corsHeaders(for: exchange.request) }
        connection.send(status: status, headers: headers, body: ByteBuffer(string: text), headOnly: exchange.request.isHead)
    }

    /// Request headers as rules see them: repeated fields joined with ", ".
    static func headers(of head: HTTPRequestHead) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in head.headers {
            if let existing = result[name] { result[name] = existing + ", " + value } else { result[name] = value }
        }
        return result
    }

    func corsHeaders(for request: ReceivedRequest) -> [(String, String)] {
        let origin = request.head.headers.first(name: "origin") ?? "*"
        var headers = [("Access-Control-Allow-Origin", origin), ("Access-Control-Expose-Headers", "*")]
        if origin != "*" {
            headers.append(("Access-Control-Allow-Credentials", "true"))
            headers.append(("Vary", "Origin"))
        }
        return headers
    }

    private func preflightHeaders(for request: ReceivedRequest) -> [(String, String)] {
        let fields = request.head.headers
        return corsHeaders(for: request) + [
            ("Access-Control-Allow-Methods", fields.first(name: "access-control-request-method") ?? "GET, POST, PUT, PATCH, DELETE"),
            ("Access-Control-Allow-Headers", fields.first(name: "access-control-request-headers") ?? "*"),
            ("Access-Control-Max-Age", "600"),
            ("Content-Length", "0"),
        ]
    }

    static func ruleReference(_ match: StubMatch) -> JournalEntry.RuleReference {
        JournalEntry.RuleReference(match.rule)
    }

    /// Writes the journal entry of one exchange (`rule`: the match's reference, when already made).
    func journal(_ exchange: Exchange, match: StubMatch? = nil, rule: JournalEntry.RuleReference? = nil, status: Int?, headers: [String: String] = [:], body: Data? = nil,
                 bodySize: Int? = nil, truncated: Bool = false, passThrough: Bool = false, error: URLError? = nil,
                 description: String? = nil, nearMisses: [NearMiss] = [], recordedAs: String? = nil, recordingFailure: String? = nil) {
        let request = exchange.request
        let duration = Double(DispatchTime.now().uptimeNanoseconds - request.startTime.uptimeNanoseconds) / 1e9
        var findings = exchange.contract
        if let check = configuration.contractCheck, check.checksResponses, let status, error == nil, match != nil || rule != nil || passThrough {
            // On the loop: the body is at most the journal's body limit (a larger one is checked for its status alone).
            let answer = ServerContractCheck.Answer(status: status, headers: headers, body: body, bodyTruncated: truncated, isReal: passThrough)
            let found = check.check(exchange.stubRequest, exchange.routed.stubbedHost != nil, answer)
            check.report(found, for: exchange.stubRequest)
            findings += found
        }
        engine.journal.record { id in
            var entry = JournalEntry(
                id: id, startedAt: request.startedAt, duration: duration, request: exchange.stubRequest, bundle: match?.bundle,
                rule: rule ?? match.map(Self.ruleReference),
                status: status, responseHeaders: headers, responseBody: body, responseBodySize: bodySize ?? body?.count ?? 0,
                responseBodyTruncated: truncated, passedThrough: passThrough,
                error: error.map { .init(code: $0.errorCode, description: description ?? $0.localizedDescription) }, nearMisses: nearMisses)
            entry.recordedAs = recordedAs
            entry.recordingFailure = recordingFailure
            entry.contractFindings = findings
            return entry
        }
    }
}
#endif
