package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Thread-safe: the live page at {@code /timed-jobs} and its data at {@code /timed-jobs/data}, as
 * Spring MVC routes that exist only when the application switches the page on, with the history
 * search at {@code /timed-jobs/history} (the parameters of the endpoint's, {@code id} among them). The data are the
 * {@link TimedJobsView} of the actuator endpoint, served here so that the page works whether or
 * not actuator is exposed, or on another port.
 */
public final class DashboardRoutes {

    /** Where the page is served. */
    public static final String PATH = "/timed-jobs";

    static final String PAGE = "io/timedjobs/scheduler/dashboard/timed-jobs.html";

    private DashboardRoutes() {}

    /** Returns the two routes, reading the page once. */
    public static RouterFunction<ServerResponse> routes(TimedJobsReport report) {
        Objects.requireNonNull(report, "report");
        String page = readPage();
        return RouterFunctions.route()
                .GET(PATH, request -> html(page))
                .GET(PATH + "/", request -> html(page))
                .GET(
                        PATH + "/data",
                        request -> ServerResponse.ok()
                                .cacheControl(CacheControl.noStore())
                                .contentType(MediaType.APPLICATION_JSON)
                                .body(report.view()))
                .GET(PATH + "/history", request -> history(report, request))
                .build();
    }

    private static ServerResponse history(TimedJobsReport report, ServerRequest request) {
        ServerResponse.BodyBuilder ok = ServerResponse.ok().cacheControl(CacheControl.noStore());
        try {
            String id = param(request, "id");
            if (id != null && !id.isBlank()) {
                return record(report, request, id.strip());
            }
            HistorySearch search = HistorySearch.parse(
                    param(request, "job"),
                    param(request, "task"),
                    param(request, "instance"),
                    param(request, "outcome"),
                    param(request, "reason"),
                    param(request, "from"),
                    param(request, "to"),
                    param(request, "at"),
                    param(request, "limit"),
                    param(request, "cursor"));
            return ok.contentType(MediaType.APPLICATION_JSON).body(report.search(search));
        } catch (IllegalArgumentException e) {
            return ServerResponse.badRequest()
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("error", String.valueOf(e.getMessage())));
        }
    }

    /** One record whole by its id: 404 for an id no record has, 400 beside another parameter. */
    private static ServerResponse record(TimedJobsReport report, ServerRequest request, String id) {
        HistorySearch.requireAlone(
                id,
                request.params().entrySet().stream()
                        .filter(param -> !param.getKey().equals("id"))
                        .flatMap(param -> param.getValue().stream())
                        .toArray(String[]::new));
        HistoryPage page = report.record(id);
        if (page == null) {
            return ServerResponse.status(HttpStatus.NOT_FOUND)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("error", HistorySearch.noRecord(id)));
        }
        return ServerResponse.ok()
                .cacheControl(CacheControl.noStore())
                .contentType(MediaType.APPLICATION_JSON)
                .body(page);
    }

    private static @Nullable String param(ServerRequest request, String name) {
        return request.param(name).orElse(null);
    }

    private static ServerResponse html(String page) {
        return ServerResponse.ok()
                .cacheControl(CacheControl.noStore())
                .contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .body(page);
    }

    private static String readPage() {
        try (InputStream in = new ClassPathResource(PAGE, DashboardRoutes.class.getClassLoader()).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the page " + PAGE + " from the class path", e);
        }
    }
}
