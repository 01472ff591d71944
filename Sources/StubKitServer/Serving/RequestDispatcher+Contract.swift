#if Tools
import Foundation
import NIOCore
import StubKit

/// The request's side of the contract check: run off the event loop (a request body may be up to
/// `--max-body`, and a schema check of it should not hold other connections' answers), then either
/// the stubs answer with the findings journalled, or the request is refused with a problem document.
extension RequestDispatcher {
    /// Where request checks run, off the event loop: concurrent, so one long check holds up no other.
    static let contractQueue = DispatchQueue(label: "stubkit.server.contract-check", qos: .userInitiated, attributes: .concurrent)

    func checkContract(_ exchange: Exchange, with check: ServerContractCheck, refusable: Bool, on connection: ConnectionHandler,
                       then answer: @escaping (Exchange, ConnectionHandler) -> Void) {
        let loop = connection.eventLoop
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let boundExchange = NIOLoopBound(exchange, eventLoop: loop)
        let boundAnswer = NIOLoopBound(answer, eventLoop: loop)
        let request = exchange.stubRequest
        let hostIsNamed = exchange.routed.stubbedHost != nil
        // On a dispatch queue, not a Task: the cooperative pool is a few threads, which a test runner
        // hosting the server in process may hold with blocking calls, and the check would wait behind them.
        Self.contractQueue.async {
            let findings = check.check(request, hostIsNamed, nil)
            loop.execute {
                let connection = bound.value
                // A client that left meanwhile gets nothing, and its request asks no rule.
                guard connection.isActive else { return }
                var exchange = boundExchange.value
                exchange.contract = findings
                guard refusable, check.rejects(findings) else {
                    check.report(findings, for: request)
                    boundAnswer.value(exchange, connection)
                    return
                }
                check.report(findings, for: request, rejected: true)
                self.reject(exchange, findings: findings, on: connection)
            }
        }
    }

    /// `400` with the RFC 9457 problem document listing the findings; no rule is asked.
    private func reject(_ exchange: Exchange, findings: [JournalContractFinding], on connection: ConnectionHandler) {
        let body = ServerContractCheck.problem(findings, for: exchange.stubRequest)
        let (name, value) = ServerContractCheck.rejectedHeader
        let headers = ["Content-Type": "application/problem+json", "Content-Length": String(body.count), name: value]
        journal(exchange, status: 400, headers: headers, body: body)
        var fields = ordered(headers)
        if configuration.cors { fields += corsHeaders(for: exchange.request) }
        connection.send(status: 400, headers: fields, body: ByteBuffer(bytes: body), headOnly: exchange.request.isHead)
    }
}
#endif
