import FileStorage
import FormEngine
import FormStore
import Foundation
import HTTPServer
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import Webhooks

/// The whole server: store, form catalog, routes, webhook worker, HTTP listener.
public final class FormhouseApplication: Sendable {
    public let configuration: AppConfiguration
    let store: any FormStore
    let server: HTTPServer
    let worker: DeliveryWorker
    let client: CurlClient
    /// The worker when started by ``start()`` rather than ``run()`` (tests).
    private let backgroundWorker = Mutex<Task<Void, Never>?>(nil)
    let router: Router<AppContext>
    /// What each admin route needs of its token, by `"<METHOD> <pattern>"`.
    let adminNeeds: [String: AdminNeed]
    private let logger: Logger
    /// Held from before the database opens until the process ends or ``shutdown()``.
    private let directoryLock: Mutex<DataDirectoryLock?>
    /// Loads the sample forms into a shared database once it answers; cancelled at shutdown.
    private let sampleLoading: Mutex<Task<Void, Never>?>
    /// Deletes uploads no submission took; started with the server, cancelled at shutdown.
    let sweeper: UploadSweeper
    let links: FileLinks
    let drafts: DraftService
    private let sweeping = Mutex<Task<Void, Never>?>(nil)

    /// Opens the store (PostgreSQL when `database.url` is set, else the SQLite database under the data
    /// directory), loads sample forms that are not there yet, and builds the routes. Nothing listens until ``start()`` or ``run()``.
    public convenience init(configuration: AppConfiguration, logger: Logger, registry: PrometheusCollectorRegistry) async throws {
        try await self.init(configuration: configuration, logger: logger, registry: registry, wrappingStore: { $0 })
    }

    /// As the public initializer, with every part of the server using the store through `wrap`: a
    /// test sees what the routes ask of the real store.
    init(
        configuration: AppConfiguration, logger: Logger, registry: PrometheusCollectorRegistry,
        wrappingStore wrap: (any FormStore) -> any FormStore
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        let opened = try await StoreSelection.open(configuration, logger: logger)
        directoryLock = Mutex(opened.directoryLock)
        let store = wrap(opened.store)
        let secretBox = opened.secrets
        let sensitive = SensitiveValues(secrets: secretBox)
        self.store = store

        let policy = AddressPolicy(allowInsecure: configuration.webhookAllowPrivate, allowPrivate: configuration.webhookAllowPrivate)
        var workerConfiguration = DeliveryWorker.Configuration()
        workerConfiguration.maxInFlight = configuration.webhookConcurrency
        workerConfiguration.lease = configuration.webhookLeaseSeconds
        workerConfiguration.shutdownGrace = Self.shutdownBudget
        let client = CurlClient(configuration: .init(
            policy: policy, connectTimeout: .seconds(configuration.webhookTimeoutSeconds),
            timeout: .seconds(configuration.webhookTimeoutSeconds)))
        self.client = client
        let worker = DeliveryWorker(
            queue: StoreDeliveryQueue(store: store, secrets: secretBox, sensitive: sensitive, owner: workerConfiguration.owner),
            client: client,
            schedule: RetrySchedule(delays: configuration.webhookRetrySchedule.map { .milliseconds(Int64($0 * 1000)) }),
            configuration: workerConfiguration,
            logger: Logger(label: "formhouse.webhooks"),
            stats: { [store] in
                let stats = try await store.deliveryStats(now: Date())
                return QueueStats(pending: stats.pending, oldestPendingAge: stats.oldestPendingAge)
            })
        self.worker = worker

        let catalog = FormCatalog(store: store)
        let auth = AdminAuth(tokens: configuration.adminTokens)
        let rateLimiter = RateLimiter(burst: configuration.rateLimitBurst, perSecond: configuration.rateLimitPerSecond)
        let storage = try FileStorageSelection.open(configuration, logger: logger)
        let links = FileLinks(
            key: secretBox.derivedKey(for: "formhouse file link v1"),
            baseURL: FileStorageSelection.publicURL(configuration, port: configuration.port),
            lifetime: configuration.fileLinkDays * 86_400)
        self.links = links
        let submissions = SubmissionService(
            catalog: catalog, store: store, sensitive: sensitive, maxValueLength: configuration.maxValueLength, rateLimiter: rateLimiter,
            links: links)
        let uploadLimits = UploadLimits(
            settings: .init(
                maxInProgress: configuration.uploadMaxInProgress, maxInProgressPerClient: configuration.uploadMaxInProgressPerClient,
                bytesPerSecondPerClient: configuration.uploadBytesPerSecondPerClient, minFreeBytes: Int64(configuration.uploadMinFreeBytes)),
            volumes: [FileStorageSelection.stagingDirectory(configuration)] + ((storage as? LocalBlobStorage).map { [$0.directory] } ?? []))
        let uploads = UploadService(
            catalog: catalog, store: store, storage: storage, limits: uploadLimits, maxFileBytes: configuration.uploadMaxFileBytes,
            unboundLifetime: configuration.uploadKeepUnboundHours * 3_600, logger: Logger(label: "formhouse.uploads"))
        let tus = try TusUploads(uploads: uploads, stagingDirectory: FileStorageSelection.stagingDirectory(configuration))
        // Often enough that an expired upload or draft does not linger long past its time, at most once a minute.
        let sweepEvery = min(60, max(0.2, min(configuration.uploadKeepUnboundHours * 3_600, configuration.draftTTLDays * 86_400) / 4))
        sweeper = UploadSweeper(store: store, tus: tus, drafts: DraftSweeper(store: store, logger: Logger(label: "formhouse.drafts")),
                                retention: RetentionSweeper(store: store, defaultDays: configuration.retentionDays,
                                                            logger: Logger(label: "formhouse.retention")),
                                interval: .milliseconds(Int64(sweepEvery * 1000)),
                                orphanAge: configuration.uploadKeepUnboundHours * 3_600, logger: Logger(label: "formhouse.uploads"))
        // Woken once per group commit that queued deliveries, not per submission (most forms have
        // no endpoint, and a wake costs the worker a claim query).
        store.onDeliveriesCreated { worker.notify() }
        var router = Router<AppContext>()
        // Four times the submission rate: a person typing triggers a validation per pause. (The
        // configuration bounds the burst to 10^9, so four times it fits.)
        let validateRateLimiter = RateLimiter(
            burst: configuration.rateLimitBurst * 4, perSecond: configuration.rateLimitPerSecond * 4, what: .validations)
        PublicRoutes(catalog: catalog, submissions: submissions, rateLimiter: rateLimiter, validateRateLimiter: validateRateLimiter)
            .register(on: &router)
        UploadRoutes(uploads: uploads, tus: tus, maxFileBytes: configuration.uploadMaxFileBytes).register(on: &router)
        drafts = DraftService(
            catalog: catalog, store: store, submissions: submissions, sensitive: sensitive,
            settings: .init(lifetime: configuration.draftTTLDays * 86_400, maxPerClientPerHour: configuration.draftMaxPerClientPerHour,
                            maxRevisions: configuration.draftMaxRevisions, maxValuesBytes: configuration.maxBodyBytes,
                            releasedUploadLifetime: configuration.uploadKeepUnboundHours * 3_600),
            rateLimiter: rateLimiter)
        DraftRoutes(drafts: drafts, rateLimiter: rateLimiter, saveRateLimiter: validateRateLimiter).register(on: &router)
        let fileRoutes = FileRoutes(store: store, storage: storage, links: links)
        fileRoutes.registerPublic(on: &router)
        let cursors = CursorSeal(key: secretBox.derivedKey(for: "formhouse paging cursor v1"))
        var adminNeeds: [String: AdminNeed] = [:]
        let sweeper = self.sweeper
        router.group("/v1/admin", middleware: auth) { group in
            var admin = AdminRoutes(group: group, store: store)
            admin.on(.get, "/whoami", needs: .init(.any)) { _, caller in .json(encoding: WhoAmIJSON(caller)) }
            AdminFormRoutes(catalog: catalog, store: store, cursors: cursors, sensitive: sensitive).register(on: &admin)
            WebhookRoutes(store: store, catalog: catalog, secrets: secretBox, policy: policy, cursors: cursors,
                          notify: { worker.notify() }).register(on: &admin)
            fileRoutes.registerAdmin(on: &admin)
            FormStatsRoutes(catalog: catalog, store: store).register(on: &admin)
            AuditRoutes(store: store, cursors: cursors).register(on: &admin)
            ErasureRoutes(store: store, sensitive: sensitive,
                          deleteReleasedFiles: { try await sweeper.deleteExpiredUploads() }).register(on: &admin)
            group = admin.group
            adminNeeds = admin.needs
        }
        self.adminNeeds = adminNeeds
        OperationsRoutes(store: store, storage: storage, registry: registry, metricsToken: configuration.metricsToken).register(on: &router)
        let files = PageFiles(files: StaticFiles(root: configuration.publicDirectory))
        // `GET /openapi.json` and the pages are files of the public directory.
        for page in ["openapi.json", "index.html", "form.html"]
        where !FileManager.default.fileExists(atPath: configuration.publicDirectory + "/" + page) {
            logger.warning("the public directory lacks a file the server serves",
                           metadata: ["directory": "\(configuration.publicDirectory)", "file": "\(page)"])
        }
        WebPages(files: files).register(on: &router)
        router.fallback = files
        self.router = router

        var http = HTTPServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxBodyBytes = configuration.maxBodyBytes
        http.maxPendingBodyBytes = configuration.maxPendingBodyBytes
        http.maxQueuedOutputBytes = configuration.maxQueuedOutputBytes
        http.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
        http.eventLoops = configuration.eventLoops
        http.shutdownDeadline = Self.shutdownBudget
        // Each delivery in flight holds a socket; the rest covers SQLite, epoll and libdispatch.
        http.reservedDescriptors = 64 + configuration.webhookConcurrency
        http.headers = SecurityHeaders.everyResponse
        http.problemTypeBase = ProblemType.base
        // The server's own problems are written like the API's, members in the same order.
        http.problemEncoder = { JSONValueEncoder.serialize($0) }
        server = HTTPServer(
            configuration: http, responder: router,
            hooks: [RequestMetrics(), CORS(origins: Set(configuration.corsOrigins)), AdminCacheControl()], logger: Logger(label: "formhouse.http"))

        // Another node may change a form: its cached current version goes.
        store.onFormChanged { [catalog] id in catalog.invalidate(id: id) }
        if opened.isShared {
            // A node may start before its database answers (it retries meanwhile, and /readyz says
            // 503): the samples are loaded once it does, without holding up the listener.
            let task = Task { [configuration, logger] in
                await SampleForms.loadWhenReachable(from: configuration.formsDirectory, into: catalog, store: store, logger: logger)
            }
            sampleLoading = Mutex(task)
        } else {
            sampleLoading = Mutex(nil)
            try await SampleForms.load(from: configuration.formsDirectory, into: catalog, store: store, logger: logger)
        }
    }

    /// Starts listening; returns the bound port (useful with port 0). ``run()`` then serves and
    /// delivers until a signal.
    public func start() throws -> Int {
        let port: Int
        do {
            port = try server.start()
        } catch let error as HTTPServerError where error.code == .resolveFailed {
            // The operator fixes this in the configuration; say which setting.
            throw ConfigurationError(key: "host", message: error.message)
        }
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        if configuration.publicURL == nil {
            links.baseURL = FileStorageSelection.publicURL(configuration, port: port)
            if !["127.0.0.1", "::1", "localhost"].contains(configuration.host) {
                logger.warning("publicUrl is not set: the file links in webhook payloads name this machine's own address, which receivers elsewhere may not reach",
                               metadata: ["links": "\(links.baseURL)"])
            }
        }
        let sweeper = self.sweeper
        sweeping.withLock { task in
            if task == nil { task = Task { await sweeper.run() } }
        }
        return port
    }

    /// Starts listening and delivering without taking over signals (tests); stop with ``shutdown()``.
    public func startInBackground() throws -> Int {
        let port = try start()
        let worker = self.worker
        backgroundWorker.withLock { $0 = Task { try? await worker.run() } }
        return port
    }

    /// How long in-flight requests and deliveries get to finish after SIGTERM, both at once: within
    /// the 10 s a container runtime waits (`docker stop`) before SIGKILL.
    static let shutdownBudget: Duration = .seconds(8)

    /// Serves until SIGTERM or SIGINT, then drains requests and deliveries and exits.
    public func run() async throws {
        // One service running both, so that both see the signal at once: a service group stops its
        // services one after another, which would keep the listener open while deliveries drain and
        // add the two drains up past the runtime's wait.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: Together(server, worker))],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        await closeStorage()
    }

    /// Stops listening, drains in-flight requests and deliveries, closes the database.
    public func shutdown() async {
        await server.shutdown()
        if let task = backgroundWorker.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        await closeStorage()
    }

    /// Stops the background work that reads the store, then closes it and gives the data directory up.
    private func closeStorage() async {
        sampleLoading.withLock { $0 }?.cancel()
        if let sweep = sweeping.withLock({ $0 }) {
            sweep.cancel()
            // A pass under way finishes its batch; the store it reads must still be open.
            await sweep.value
        }
        client.shutdown()
        // Closing waits for every reader still in use, and an async read may need a thread of the
        // cooperative pool to give its reader back: blocking one of those few threads here (two
        // servers shutting down at once take both on two cores) could wait forever.
        let store = self.store
        _ = try? await Offload.blocking { store.close() }
        directoryLock.withLock { $0 = nil }
    }
}

/// Runs services as child tasks, which share the graceful shutdown of the task that runs this. One
/// that fails, or ends before a shutdown began, ends the others, as a service group would.
private struct Together: Service {
    let services: [any Service]
    init(_ services: any Service...) { self.services = services }

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services { group.addTask { try await service.run() } }
            // During a shutdown each finishes its own drain; only an early end cuts the others short.
            while try await group.next() != nil {
                if !Task.isShuttingDownGracefully { group.cancelAll() }
            }
        }
    }
}
