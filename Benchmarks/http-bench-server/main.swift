import Glibc
import HTTPServer
import Logging
import ServiceLifecycle

// The server the load benchmark measures: GET /json answers a fixed 1 KiB JSON body, POST /echo echoes its body.
// Usage: http-bench-server PORT [EVENT_LOOPS]

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let loops = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0

let payload: [UInt8] = {
    var text = #"{"id":"bench","title":"Benchmark payload","items":["#
    var index = 0
    while text.utf8.count < 1000 {
        text += (index == 0 ? "" : ",") + #"{"n":\#(index),"v":"abcdefgh"}"#
        index += 1
    }
    text += "]"
    text += String(repeating: " ", count: 1023 - text.utf8.count) + "}"
    return Array(text.utf8)
}()
precondition(payload.count == 1024)

var router = Router<BasicRequestContext>()
router.on(.get, "/json") { _, _ in .json(payload) }
router.on(.post, "/echo") { request, _ in .json(request.body) }

var configuration = HTTPServerConfiguration()
configuration.port = port
configuration.eventLoops = loops
var logger = Logger(label: "bench.http")
// The access log is at info; the benchmark measures the server, not the terminal.
logger.logLevel = .warning
let server = HTTPServer(configuration: configuration, responder: router, logger: logger)
let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
