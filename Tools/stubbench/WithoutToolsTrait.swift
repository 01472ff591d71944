#if !Tools
import Foundation

/// Built without the `Tools` trait (as an app's dependency graph has it): stubbench's dependencies were not
/// resolved, so this says how to build the real one instead of failing to link.
@main
enum StubbenchWithoutTools {
    static func main() {
        FileHandle.standardError.write(Data("stubbench was built without the Tools trait; build it with: swift build --traits Tools --product stubbench\n".utf8))
        exit(2)
    }
}
#endif
