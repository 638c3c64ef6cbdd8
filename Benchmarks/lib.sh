# Shared by the benchmark scripts: nginx as the baseline server, wrk's latency in milliseconds, and
# the submission the API benchmarks post.

# start_nginx WORK PORT LOCATIONS: one worker, no access log, unlimited keep-alive, listening on
# 127.0.0.1:PORT with the given `location` lines; its pid lands in WORK/nginx.pid.
start_nginx() {
    local work="$1" port="$2" locations="$3"
    cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 8192; }
http {
    access_log off;
    keepalive_requests 10000000;
    server {
        listen 127.0.0.1:$port backlog=1024;
        $locations
    }
}
NGINX
    nginx -c "$work/nginx.conf" -p "$work"
}

# to_ms VALUE: a wrk latency such as 850.00us, 1.20ms or 1.10s, in milliseconds.
to_ms() {
    python3 -c "import sys; v=sys.argv[1]; u=v.lstrip('0123456789.'); n=float(v[:len(v)-len(u)]); print(round(n*{'us':0.001,'ms':1,'s':1000}[u],2))" "$1"
}

# A submission to the sample form `formworks-example` that validates.
bench_body='{"values": {"name": "Ana Souza", "email": "ana@example.org", "about": "Hello", "text-what-is-your-mothers-name": "Maria", "phone": "(11) 91234-5678", "age": "30"}}'

# post_script FILE PATH: a wrk script that POSTs bench_body as JSON to PATH.
post_script() {
    cat >"$1" <<LUA
wrk.method = "POST"
wrk.path = "$2"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$bench_body'
LUA
}
