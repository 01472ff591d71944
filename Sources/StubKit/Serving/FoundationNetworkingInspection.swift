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

    /// The serial queue FoundationNetworking calls `startLoading` and `stopLoading` on for this task,
    /// so that deferred client calls run where those do.
    static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        guard let task else { return nil }
        return field("workQueue", of: task) as? DispatchQueue
    }

    private static func session(of task: URLSessionTask) -> URLSession? {
        field("session", of: task) as? URLSession
    }

    /// A stored property of the task (or of one of its superclasses), unwrapped.
    private static func field(_ label: String, of task: URLSessionTask) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let value = current.children.first(where: { $0.label == label })?.value {
                return unwrap(value)
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
