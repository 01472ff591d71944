#if Tools
import Foundation
import NIOCore
import StubKit

/// The admin API's answers and the checking of its query parameters.
extension AdminAPI {
    /// One answer: status, body and content type.
    struct Reply: Sendable {
        var status = 200
        var body: Data
        var contentType: String

        static func json(_ object: Any) -> Reply {
            let data = CanonicalJSON.data(object) ?? Data("{}".utf8)
            return Reply(body: data + Data("\n".utf8), contentType: "application/json")
        }

        static func data(_ data: Data, _ contentType: String) -> Reply {
            Reply(body: data, contentType: contentType)
        }
    }

    /// `a=1&b=two` → names to values (the last wins), decoded as a form (`+` is a space): admin
    /// parameters are typed by people, unlike the query items rules compare.
    static func parameters(_ query: String?) -> [String: String] {
        var result: [String: String] = [:]
        func formDecoded(_ text: Substring) -> String { PercentEncoding.decoded(text.replacingOccurrences(of: "+", with: " ")[...]) }
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = formDecoded(parts[0])
            let value = parts.count > 1 ? formDecoded(parts[1]) : ""
            result[name] = value
        }
        return result
    }

    static func bool(_ parameters: [String: String], _ name: String) throws(Failure) -> Bool {
        switch parameters[name]?.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        case nil: throw Failure(status: 400, message: "missing parameter '\(name)' (true or false)")
        case let other?: throw Failure(status: 400, message: "parameter '\(name)' is '\(other)'; expected true or false")
        }
    }

    static func seconds(_ parameters: [String: String], _ name: String, limit: TimeInterval) throws(Failure) -> TimeInterval {
        guard let text = parameters[name] else { throw Failure(status: 400, message: "missing parameter '\(name)' (seconds, at most \(limit))") }
        guard let value = Double(text), value.isFinite, value >= 0, value <= limit else {
            throw Failure(status: 400, message: "parameter '\(name)' is '\(text)'; expected seconds from 0 to \(limit)")
        }
        return value
    }

    static func count(_ parameters: [String: String]) throws(Failure) -> Int {
        guard let text = parameters["count"] else { return 1 }
        guard let value = Int(text), value >= 1, value <= 1_000_000 else {
            throw Failure(status: 400, message: "parameter 'count' is '\(text)'; expected a whole number from 1 to 1000000")
        }
        return value
    }

    /// `method`, `path` (a rule path pattern: `/orders/{id}`, `/images/**`), `host`, `answered`.
    static func predicate(_ parameters: [String: String]) throws(Failure) -> RequestPredicate {
        var conditions = RequestConditions(methods: parameters["method"].map { [$0.uppercased()] }, host: parameters["host"]?.lowercased())
        if let path = parameters["path"] {
            do {
                conditions.path = try PathPattern(parsing: path)
            } catch {
                throw Failure(status: 400, message: "parameter 'path' is '\(path)': \(error.message)")
            }
        }
        var answered: Bool? = nil
        if parameters["answered"] != nil { answered = try bool(parameters, "answered") }
        return RequestPredicate(conditions: conditions, answered: answered)
    }
}

extension ConnectionHandler {
    func send(reply: Result<AdminAPI.Reply, AdminAPI.Failure>, head: Bool, extra: [(String, String)] = []) {
        let answer: AdminAPI.Reply
        switch reply {
        case .success(let ok): answer = ok
        case .failure(let failure):
            var json = AdminAPI.Reply.json(["error": failure.message])
            json.status = failure.status
            answer = json
        }
        send(status: answer.status, headers: [("Content-Type", answer.contentType), ("Content-Length", String(answer.body.count)),
                                              ("Cache-Control", "no-store")] + extra,
             body: ByteBuffer(bytes: answer.body), headOnly: head)
    }
}
#endif
