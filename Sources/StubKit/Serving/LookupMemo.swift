import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `canInit` found for the last few requests it took, so that `startLoading` need not find it again.
///
/// The loading system asks `canInit` and then starts a load for the same request; building the
/// ``StubRequest`` and walking the index a second time was a third of StubKit's own work per request
/// (callgrind, docs/benchmarks.md). A remembered lookup is reused only when
/// - the request's method, URL, headers and body equal those `canInit` saw: a ``StubRequest`` is a
///   function of exactly these, so the same request sent twice, or twice at once, reuses a lookup that
///   is right for it, and one sent with another body does not match;
/// - the engine's index is the same object: activating or deactivating a bundle replaces it, so a
///   rule change between `canInit` and `startLoading` is seen;
/// - no active rule is stateful (sequences and scenarios are matched under the engine's lock, as before).
///
/// Each lookup is taken at most once, and only the newest ``capacity`` are kept.
final class LookupMemo: Sendable {
    /// The parts of a `URLRequest` a ``StubRequest`` is built from.
    struct Key: Equatable, Sendable {
        var method: String?
        var url: URL?
        var headers: [String: String]?
        var body: Data?

        init(_ request: URLRequest) {
            method = request.httpMethod
            url = request.url
            headers = request.allHTTPHeaderFields
            body = request.httpBody
        }
    }

    /// A lookup made in `canInit`: the request as the matcher sees it, and the rule the index chose.
    struct Found: Sendable {
        let request: StubRequest
        let index: RuleIndex
        let entry: RuleIndex.Entry
    }

    /// Requests taken by `canInit` whose load has not started yet; a handful covers the loads a
    /// session starts at once, and a miss only costs the lookup again.
    static let capacity = 16

    private let recent = Locked<[(key: Key, found: Found)]>([])

    func remember(_ key: Key, _ found: Found) {
        recent.withLock { recent in
            if recent.count >= Self.capacity { recent.removeFirst() }
            recent.append((key, found))
        }
    }

    /// The newest lookup for an equal request, removed from the memo; `nil` when there is none.
    func take(_ key: Key) -> Found? {
        recent.withLock { recent in
            guard let position = recent.lastIndex(where: { $0.key == key }) else { return nil }
            return recent.remove(at: position).found
        }
    }

    /// Forgets every lookup: called when the engine's index is replaced, so lookups against the old
    /// one (never reused) do not keep its rules, and the request bodies they hold, alive.
    func removeAll() {
        recent.withLock { $0.removeAll() }
    }

    /// How many lookups are kept (for tests).
    var count: Int { recent.withLock { $0.count } }
}
