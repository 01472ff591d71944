import Foundation

/// Reads an event stream line by line as a browser's `EventSource` does (the WHATWG HTML standard's
/// interpretation of an event stream), for tests: bytes may arrive split anywhere.
struct EventStreamLineParser {
    struct Event: Equatable, CustomStringConvertible {
        var type: String
        var data: String
        var id: String?
        var retry: Int?
        var description: String { "\(type) id=\(id ?? "-") retry=\(retry.map(String.init) ?? "-") data=\(data)" }
    }

    private(set) var events: [Event] = []
    private(set) var comments: [String] = []
    private var pending = Data()
    private var type = ""
    private var data: [String] = []
    private var hasData = false
    private var lastID: String?
    private var retry: Int?

    mutating func feed(_ bytes: Data) {
        pending.append(bytes)
        while let end = pending.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            var next = pending.index(after: end)
            if pending[end] == 0x0D, next < pending.endIndex, pending[next] == 0x0A { next = pending.index(after: next) }
            let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
            pending = Data(pending[next...])
            take(line)
        }
    }

    private mutating func take(_ line: String) {
        if line.isEmpty {
            if hasData { events.append(Event(type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"), id: lastID, retry: retry)) }
            type = ""; data = []; hasData = false; retry = nil
            return
        }
        if line.hasPrefix(":") {
            comments.append(String(line.dropFirst().drop { $0 == " " }))
            return
        }
        let field: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            let after = line[line.index(after: colon)...]
            value = after.hasPrefix(" ") ? after.dropFirst() : after
        } else {
            field = Substring(line); value = ""
        }
        switch field {
        case "event": type = String(value)
        case "data": data.append(String(value)); hasData = true
        case "id": lastID = String(value)
        case "retry": retry = Int(value)
        default: break
        }
    }
}
