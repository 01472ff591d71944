import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind one lock, reached only through `withLock`. Copies share the value and the lock.
///
/// The value and a pthread mutex live in one allocation (a `ManagedBuffer`, as SwiftNIO's `NIOLock`
/// does): every stubbed request makes and frees a few of these, and an `NSLock` is an object of its own
/// with a mutex allocated apart (three allocations instead of one). Not `Synchronization.Mutex`, so the
/// library still builds for Apple deployment targets older than macOS 15 / iOS 18.
package struct Locked<Value>: @unchecked Sendable {
    private let storage: LockStorage<Value>

    package init(_ value: Value) {
        storage = LockStorage.make(value, recursive: false)
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The value (the buffer's header) and its mutex (the buffer's one element), which never moves.
final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    static func make(_ value: Value, recursive: Bool) -> LockStorage<Value> {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            let result: Int32
            if recursive {
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_RECURSIVE))
                result = pthread_mutex_init(mutex, &attributes)
                pthread_mutexattr_destroy(&attributes)
            } else {
                result = pthread_mutex_init(mutex, nil)
            }
            precondition(result == 0, "StubKit: pthread_mutex_init failed (\(result))")
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { _ = pthread_mutex_destroy($0) }
    }
}
