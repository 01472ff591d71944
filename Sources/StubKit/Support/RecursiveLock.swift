import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock the thread holding it may take again (a client call can lead the loading system to call
/// `stopLoading` on the same thread, see ``LoadExecutor``). One allocation, like ``Locked``.
struct RecursiveLock: @unchecked Sendable {
    private let storage = LockStorage.make((), recursive: true)

    func lock() {
        storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_lock($0) }
    }

    func unlock() {
        storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_unlock($0) }
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
