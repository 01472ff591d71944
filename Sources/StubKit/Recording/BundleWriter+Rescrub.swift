import Foundation

/// Scrubbing what was already written, when a secret is learned late.
extension BundleWriter {
    /// Applies `scrub` again to every text response file this writer wrote and to the stored
    /// response headers and events, when a secret was learned after they were written (a JWT in a login body,
    /// recognised only when a later request sends it as `Authorization`). Each changed file is
    /// replaced atomically (staged, then renamed), under the append lock.
    ///
    /// - Returns: how many replacements were made.
    @discardableResult
    func rescrub(_ scrub: (String) -> (String, Int)) -> Int {
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
                        let event = state.groups[g].responses[r].events!.events[e]
                        if let data = event.data, case let (clean, count) = scrub(data), count > 0 {
                            state.groups[g].responses[r].events!.events[e].data = clean
                            inRules += count
                        }
                        if let comment = event.comment, case let (clean, count) = scrub(comment), count > 0 {
                            state.groups[g].responses[r].events!.events[e].comment = clean
                            inRules += count
                        }
                    }
                }
            }
            if inRules > 0, !state.batching, (try? write(state)) != nil { total += inRules }
            return total
        }
    }
}
