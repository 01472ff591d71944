import Foundation

/// A value behind one lock, reached only through `withLock`.
///
/// `NSLock` rather than `Synchronization.Mutex` so the library still builds for Apple deployment
/// targets older than macOS 15 / iOS 18.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
