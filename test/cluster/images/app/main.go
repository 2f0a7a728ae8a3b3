// The test app of the real-node suite. It serves probe checks on GET /check/<probe> and answers
// them by its health, which the test switches at run time with POST /health/<state>:
//
//	ok     200 at once
//	fail   500 at once
//	hang   no answer until the kubelet gives up on the check (its timeout)
//	slow   200 after SLOW_MS milliseconds
//
// GET /actuator/health answers as a framework's aggregate health does: 200 when the URL in
// DEPENDENCY answers 2xx within a second, 503 otherwise (a database that is down);
// GET /actuator/health/liveness as its liveness group does: 200 while the process runs.
//
// FLAKY_EVERY=N makes every Nth check of each probe fail (500) whatever the health: a probe that
// fails a share of its checks, never twice in a row.
//
// FAIL_FOR_MS makes it fail every check for that long after it starts (a slow starter). Every
// check, health change, start and SIGTERM is written as one JSON line to the file LOG (a hostPath
// the test reads), with the time in milliseconds since the epoch: the node's clock is the test's.
// `app check URL` is the same check run as an exec probe.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type event struct {
	T      int64  `json:"t"`
	Event  string `json:"event"`
	Probe  string `json:"probe,omitempty"`
	Health string `json:"health,omitempty"`
	Status int    `json:"status,omitempty"`
	End    int64  `json:"end,omitempty"`
}

var (
	logMu   sync.Mutex
	logFile *os.File
)

func now() int64 { return time.Now().UnixMilli() }

func record(e event) {
	line, _ := json.Marshal(e)
	logMu.Lock()
	defer logMu.Unlock()
	if logFile != nil {
		logFile.Write(append(line, '\n'))
	}
}

func envInt(name string, fallback int) int {
	if value, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return value
	}
	return fallback
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "check" {
		os.Exit(check(os.Args[2]))
	}
	var err error
	if path := os.Getenv("LOG"); path != "" {
		if logFile, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	started := time.Now()
	failFor := time.Duration(envInt("FAIL_FOR_MS", 0)) * time.Millisecond
	slow := time.Duration(envInt("SLOW_MS", 3000)) * time.Millisecond
	flakyEvery := envInt("FLAKY_EVERY", 0)
	var checksMu sync.Mutex
	checks := map[string]int{}
	var healthMu sync.Mutex
	health := "ok"
	if initial := os.Getenv("HEALTH"); initial != "" {
		health = initial
	}
	current := func() string {
		healthMu.Lock()
		defer healthMu.Unlock()
		if time.Since(started) < failFor {
			return "fail"
		}
		return health
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/check/", func(w http.ResponseWriter, r *http.Request) {
		probe := strings.TrimPrefix(r.URL.Path, "/check/")
		state := current()
		if flakyEvery > 0 {
			checksMu.Lock()
			checks[probe]++
			if checks[probe]%flakyEvery == 0 {
				state = "fail"
			}
			checksMu.Unlock()
		}
		at := now()
		status := http.StatusOK
		switch state {
		case "fail":
			status = http.StatusInternalServerError
		case "hang":
			<-r.Context().Done() // the kubelet closes the connection at its timeout
			status = 0
		case "slow":
			select {
			case <-time.After(slow):
			case <-r.Context().Done():
				status = 0
			}
		}
		record(event{T: at, Event: "check", Probe: probe, Health: state, Status: status, End: now()})
		if status != 0 {
			w.WriteHeader(status)
		}
	})
	dependency := os.Getenv("DEPENDENCY")
	dependencyClient := &http.Client{Timeout: time.Second}
	mux.HandleFunc("/actuator/health", func(w http.ResponseWriter, r *http.Request) {
		at := now()
		status := http.StatusServiceUnavailable
		if response, err := dependencyClient.Get(dependency); err == nil {
			response.Body.Close()
			if response.StatusCode >= 200 && response.StatusCode < 300 {
				status = http.StatusOK
			}
		}
		record(event{T: at, Event: "check", Probe: "actuator", Status: status, End: now()})
		w.WriteHeader(status)
	})
	// Spring Boot's liveness group: the process is alive, whatever its dependencies do.
	mux.HandleFunc("/actuator/health/liveness", func(w http.ResponseWriter, r *http.Request) {
		record(event{T: now(), Event: "check", Probe: "actuator-liveness", Status: http.StatusOK, End: now()})
	})
	mux.HandleFunc("/health/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		state := strings.TrimPrefix(r.URL.Path, "/health/")
		switch state {
		case "ok", "fail", "hang", "slow":
		default:
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		healthMu.Lock()
		health = state
		healthMu.Unlock()
		at := now()
		record(event{T: at, Event: "health", Health: state})
		fmt.Fprintf(w, "%d\n", at)
	})

	server := &http.Server{Addr: ":" + strconv.Itoa(envInt("PORT", 8080)), Handler: mux}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		record(event{T: now(), Event: "sigterm"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		server.Shutdown(ctx)
		os.Exit(0) // a clean exit on SIGTERM, as well-behaved apps do
	}()
	record(event{T: now(), Event: "start", Health: current()})
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	select {}
}

// check is the exec probe: exit 0 on a 2xx answer, 1 otherwise.
func check(url string) int {
	response, err := http.Get(url)
	if err != nil {
		return 1
	}
	response.Body.Close()
	if response.StatusCode >= 200 && response.StatusCode < 300 {
		return 0
	}
	return 1
}
