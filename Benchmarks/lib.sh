# Shared by the benchmark scripts: nginx as the baseline server, and wrk's latency in milliseconds.

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
