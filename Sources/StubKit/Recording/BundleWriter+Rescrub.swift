import Foundation

/// Scrubbing what was already written, when a secret is learned late.
extension BundleWriter {
    /// Applies `scrub` again to every text response file this writer wrote and to the stored
    /// response headers, events and WebSocket scripts, when a secret was learned after they were written (a JWT in a login body,
    /// recognised only when a later request sends it as `Authorization`). Each changed file is
    /// replaced atomically (staged, then renamed), under the append lock.
    ///
    /// - Returns: how many replacements were made.
    @discardableResult
    func rescrub(_ scrub: (String) -> (String, Int), bytes scrubBytes: (Data) -> (Data, Int)) -> Int {
        state.withLock { state -> Int in
            var total = 0
            for name in state.textFiles {
                let url = folder.appendingPathComponent(name)
                guard let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, size <= Recorder.sniffLimit,
                      let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else { continue }
                let (clean, count) = scrub(text)
                guard count > 0 else { continue }
                let staged = folder.appendingPathComponent(".partial-\(UUID().uuidString)")
                guard (try? Data(clean.utf8).write(to: staged)) != nil, rename(staged.path, url.path) == 0 else {
                    try? FileManager.default.removeItem(at: staged)
                    continue
                }
                total += count
            }
            var inRules = 0
            for g in state.groups.indices {
                for r in state.groups[g].responses.indices {
                    for (name, value) in state.groups[g].responses[r].headers {
                        let (clean, count) = scrub(value)
                        if count > 0 { state.groups[g].responses[r].headers[name] = clean; inRules += count }
                    }
                    for e in state.groups[g].responses[r].events?.events.indices ?? 0..<0 {
                        // Every text field the recorder redacts: `id` is often a cursor or a token.
                        let fields: [WritableKeyPath<EventStream.Event, String?>] = [\.data, \.comment, \.id, \.event]
                        for field in fields {
                            if let text = state.groups[g].responses[r].events!.events[e][keyPath: field], case let (clean, count) = scrub(text), count > 0 {
                                state.groups[g].responses[r].events!.events[e][keyPath: field] = clean
                                inRules += count
                            }
                        }
                    }
                    if let script = state.groups[g].responses[r].webSocket {
                        let (clean, count) = Self.rescrubbed(script, scrub, bytes: scrubBytes)
                        if count > 0 { state.groups[g].responses[r].webSocket = clean; inRules += count }
                    }
                }
            }
            if inRules > 0, !state.batching, (try? write(state)) != nil { total += inRules }
            return total
        }
    }

    /// A `webSocket` script with every string scrubbed (messages, reply conditions, close reasons),
    /// and each `binary` step's Base64 payload scrubbed as bytes.
    private static func rescrubbed(_ value: JSONText, _ scrub: (String) -> (String, Int), bytes scrubBytes: (Data) -> (Data, Int)) -> (JSONText, Int) {
        switch value {
        case .object(let pairs):
            var count = 0
            let clean = pairs.map { key, child -> (String, JSONText) in
                if key == RuleKey.WebSocketStepKey.binary.rawValue, case .string(let base64) = child, let data = Data(base64Encoded: base64) {
                    let (bytes, found) = scrubBytes(data)
                    count += found
                    return (key, found > 0 ? .string(bytes.base64EncodedString()) : child)
                }
                let (inner, found) = rescrubbed(child, scrub, bytes: scrubBytes)
                count += found
                return (key, inner)
            }
            return (.object(clean), count)
        case .array(let items):
            var count = 0
            let clean = items.map { item -> JSONText in
                let (inner, found) = rescrubbed(item, scrub, bytes: scrubBytes)
                count += found
                return inner
            }
            return (.array(clean), count)
        case .string(let text):
            let (clean, count) = scrub(text)
            return (count > 0 ? .string(clean) : value, count)
        case .int, .bool, .raw:
            return (value, 0)
        }
    }
}
