#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// Asks FoundationNetworking how it will hand a task's data to the app, which its public API does not tell.
///
/// A task created without a completion handler, on a session whose delegate takes data, receives every
/// `didLoad` chunk; a task with a completion handler keeps only the last one (Swift 6.3.1). The session's
/// task registry records which is which. It is internal, so it is read by reflection, and anything
/// unexpected (renamed fields, another layout) answers `false`: the body then goes in one piece, which
/// is always correct, only less frugal with memory.
enum FoundationNetworkingInspection {
    static func deliversChunksToDelegate(_ task: URLSessionTask?) -> Bool {
        guard let task, let session = session(of: task), session.delegate is (any URLSessionDataDelegate) else { return false }
        guard let registry = Mirror(reflecting: session).descendant("taskRegistry"),
              let behaviours = Mirror(reflecting: registry).descendant("behaviours") as? [Int: Any],
              let behaviour = behaviours[task.taskIdentifier] else { return false }
        return String(describing: behaviour).hasSuffix("callDelegate")
    }

    /// The queue the task's session calls its delegate on, for back-pressure while streaming.
    static func delegateQueue(of task: URLSessionTask?) -> OperationQueue? {
        task.flatMap(session(of:))?.delegateQueue
    }

    private static func session(of task: URLSessionTask) -> URLSession? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let value = current.children.first(where: { $0.label == "session" })?.value {
                return unwrap(value) as? URLSession
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value inside an optional (a weak or implicitly unwrapped reference), or the value itself.
    private static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }
}
#endif
